import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { CopyButton } from "../../components/CopyButton";
import { DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";

const KEY = ["email", "keys"];
const day = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "never");

/** Transactional API keys (workspace-wide): listed by prefix; a new key is shown once. */
export function KeysSection() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: KEY, queryFn: () => call(api.GET("/api/transactional-api-keys")) });
  const [name, setName] = useState("");
  const mint = useMutation({
    mutationFn: () => call(api.POST("/api/transactional-api-keys", { body: { name } })),
    onSuccess: () => {
      setName("");
      void queryClient.invalidateQueries({ queryKey: KEY });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) =>
      call(api.DELETE("/api/transactional-api-keys/{keyId}", { params: { path: { keyId } } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: KEY }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mint.mutate();
  };
  return (
    <Card title="Transactional API keys">
      <p className="muted break-all">
        Keys for <code>POST /api/v1/transactional/send</code> (<code>Authorization: Bearer …</code>). They
        send from the whole workspace: keep them on your servers.
      </p>
      {keys.isPending ? (
        <PageSkeleton label="Loading keys" />
      ) : keys.isError ? (
        <ErrorState error={keys.error} retry={() => void keys.refetch()} />
      ) : keys.data.length === 0 ? (
        <EmptyState title="No transactional keys" />
      ) : (
        <DataTable
          caption="Transactional API keys"
          rows={keys.data}
          rowKey={(k) => k.id}
          columns={[
            { header: "Name", cell: (k) => k.name },
            { header: "Key", cell: (k) => <code>{k.prefix}…</code> },
            { header: "Created", cell: (k) => k.createdAt.slice(0, 10) },
            { header: "Last used", cell: (k) => day(k.lastUsedAt) },
            {
              header: "Status",
              cell: (k) =>
                k.revokedAt ? (
                  `revoked ${k.revokedAt.slice(0, 10)}`
                ) : (
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
      <form className="form-row" onSubmit={submit} aria-label="Create a transactional key">
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
            <code className="secret break-all" data-testid="tx-raw-key">
              {mint.data.rawKey}
            </code>
            <CopyButton text={mint.data.rawKey} label="Copy key" />
          </div>
        </div>
      )}
    </Card>
  );
}
