import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { type ApiData, api, call } from "../../api/client";
import { useProjectId } from "../../api/project";
import { useMe } from "../../api/session";
import { CopyButton } from "../../components/CopyButton";
import { Field } from "../../components/Field";
import { Card, ErrorState, PageSkeleton, SaveOutcome } from "../../components/states";
import { webhookKeys } from "./model";

type Source = ApiData<"/api/webhooks/sources", "get">[number];

const NAMES: Record<string, string> = { crm: "CRM", payments: "Payments", code_host: "Code host" };

/** Incoming platform webhooks: where each platform should send them and the secret that verifies them. */
export function SourcesSection() {
  const me = useMe();
  const isAdmin = me.data?.user.role === "admin";
  const sources = useQuery({
    queryKey: webhookKeys.sources,
    queryFn: () => call(api.GET("/api/webhooks/sources")),
    enabled: isAdmin,
  });
  return (
    <Card title="Incoming webhooks">
      <p className="muted">
        Platforms send their events to these addresses; Lift checks each request's signature with the secret
        you set here (the platform gives it to you). Secrets are stored encrypted and never shown again.
      </p>
      {!isAdmin ? (
        <p className="muted">Incoming webhook secrets are managed by the workspace's admins.</p>
      ) : sources.isPending ? (
        <PageSkeleton label="Loading sources" />
      ) : sources.isError ? (
        <ErrorState error={sources.error} retry={() => void sources.refetch()} />
      ) : (
        sources.data.map((s) => <SourceRow key={s.source} s={s} />)
      )}
    </Card>
  );
}

function SourceRow({ s }: { s: Source }) {
  const queryClient = useQueryClient();
  const projectId = useProjectId();
  const [secret, setSecret] = useState("");
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PUT("/api/webhooks/sources/{source}", {
          params: { path: { source: s.source } },
          body: { secret },
        }),
      ),
    onSuccess: () => {
      setSecret("");
      void queryClient.invalidateQueries({ queryKey: webhookKeys.sources });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const name = NAMES[s.source] ?? s.source;
  const address = projectId ? `${s.url}?project=${encodeURIComponent(projectId)}` : s.url;
  return (
    <section className="block-row" aria-label={`${name} webhooks`}>
      <h3>
        {name}{" "}
        <span
          className={`badge status-${s.configured ? "active" : "none"}`}
          data-testid={`source-${s.source}`}
        >
          {s.configured ? `secret set ${s.updatedAt?.slice(0, 10) ?? ""}` : "no secret"}
        </span>
      </h3>
      <div className="copy-row">
        <code className="secret break-all">{address}</code>
        <CopyButton text={address} label={`Copy ${name} address`} />
      </div>
      <form className="form-row" onSubmit={submit} aria-label={`Set the ${name} secret`}>
        <Field
          label={`${name} signing secret`}
          type="password"
          autoComplete="off"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          required
          minLength={8}
          maxLength={500}
        />
        <button type="submit" className="button secondary" disabled={save.isPending}>
          {s.configured ? "Replace secret" : "Set secret"}
        </button>
      </form>
      <SaveOutcome save={save} />
    </section>
  );
}
