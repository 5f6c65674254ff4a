import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { CopyButton } from "../../components/CopyButton";
import { DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";

interface Project {
  id: string;
  name: string;
}

/** A project's secret API keys: listed by prefix; a new key's full value is shown once. */
export function KeysSection({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const keyQuery = ["projects", project.id, "keys"];
  const keys = useQuery({
    queryKey: keyQuery,
    queryFn: () => call(api.GET("/api/projects/{id}/keys", { params: { path: { id: project.id } } })),
  });
  const [name, setName] = useState("");
  const mint = useMutation({
    mutationFn: () =>
      call(api.POST("/api/projects/{id}/keys", { params: { path: { id: project.id } }, body: { name } })),
    onSuccess: () => {
      setName("");
      void queryClient.invalidateQueries({ queryKey: keyQuery });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) =>
      call(api.DELETE("/api/projects/{id}/keys/{keyId}", { params: { path: { id: project.id, keyId } } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keyQuery }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mint.mutate();
  };

  return (
    <Card title={`API keys of ${project.name}`}>
      <p className="muted">
        Secret keys for servers and SDKs (<code>x-api-key</code>). Never put them in a web page.
      </p>
      {keys.isPending ? (
        <PageSkeleton label="Loading keys" />
      ) : keys.isError ? (
        <ErrorState error={keys.error} retry={() => void keys.refetch()} />
      ) : keys.data.length === 0 ? (
        <EmptyState title="No API keys" />
      ) : (
        <DataTable
          caption="API keys"
          rows={keys.data}
          rowKey={(k) => k.id}
          columns={[
            { header: "Name", cell: (k) => k.name },
            { header: "Key", cell: (k) => <code>{k.prefix}…</code> },
            { header: "Created", cell: (k) => k.createdAt.slice(0, 10) },
            {
              header: "Last used",
              cell: (k) => (k.lastUsedAt ? k.lastUsedAt.slice(0, 16).replace("T", " ") : "never"),
            },
            {
              header: "Actions",
              cell: (k) => (
                <button
                  type="button"
                  className="button danger small"
                  aria-label={`Revoke ${k.name}`}
                  disabled={revoke.isPending}
                  onClick={() => {
                    if (window.confirm(`Revoke the key “${k.name}”? It stops working at once.`))
                      revoke.mutate(k.id);
                  }}
                >
                  Revoke
                </button>
              ),
            },
          ]}
        />
      )}
      {revoke.isError && <ErrorState title="Not revoked" error={revoke.error} />}
      <form className="form-row" onSubmit={submit} aria-label="Create an API key">
        <Field
          label="Key name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={200}
        />
        <button type="submit" className="button" disabled={mint.isPending}>
          Create key
        </button>
      </form>
      {mint.isError && <ErrorState title="Not created" error={mint.error} />}
      {mint.isSuccess && (
        <div className="callout ok new-key" role="status">
          <p>
            <strong>Copy the key “{mint.data.name}” now: it is not shown again.</strong>
          </p>
          <div className="copy-row">
            <code className="secret" data-testid="raw-key">
              {mint.data.rawKey}
            </code>
            <CopyButton text={mint.data.rawKey} label="Copy key" />
          </div>
        </div>
      )}
    </Card>
  );
}
