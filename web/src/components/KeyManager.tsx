import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { CopyButton } from "./CopyButton";
import { DataTable } from "./DataTable";
import { Field } from "./Field";
import { Card, EmptyState, ErrorState, PageSkeleton } from "./states";

/** A listed key: its full value is never read back, only its prefix. */
export interface ListedKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt?: string | null;
}

export interface KeyManagerProps {
  title: string;
  intro: ReactNode;
  /** the table's caption and the empty state's title */
  noun: { table: string; empty: string; form: string };
  queryKey: readonly unknown[];
  list: () => Promise<ListedKey[]>;
  create: (name: string) => Promise<{ id: string; name: string; rawKey: string }>;
  revoke: (id: string) => Promise<unknown>;
  /** test id of the one-time key value */
  rawKeyTestId: string;
}

const when = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "never");

/**
 * Secret keys, one way everywhere (project API keys, transactional keys): listed by prefix, a new
 * key's value shown once — and hidden again as soon as that key is revoked.
 */
export function KeyManager(p: KeyManagerProps) {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: p.queryKey, queryFn: p.list });
  const [name, setName] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: p.queryKey });
  const mint = useMutation({
    mutationFn: () => p.create(name),
    onSuccess: () => {
      setName("");
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: p.revoke,
    onSuccess: (_r, id) => {
      if (mint.data?.id === id) mint.reset();
    },
    onSettled: () => void refresh(),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mint.mutate();
  };
  return (
    <Card title={p.title}>
      <p className="muted break-all">{p.intro}</p>
      {keys.isPending ? (
        <PageSkeleton label="Loading keys" />
      ) : keys.isError ? (
        <ErrorState error={keys.error} retry={() => void keys.refetch()} />
      ) : keys.data.length === 0 ? (
        <EmptyState title={p.noun.empty} />
      ) : (
        <DataTable
          caption={p.noun.table}
          rows={keys.data}
          rowKey={(k) => k.id}
          columns={[
            { header: "Name", cell: (k) => k.name },
            { header: "Key", cell: (k) => <code>{k.prefix}…</code> },
            { header: "Created", cell: (k) => k.createdAt.slice(0, 10) },
            { header: "Last used", cell: (k) => when(k.lastUsedAt) },
            {
              header: "Actions",
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
      <form className="form-row" onSubmit={submit} aria-label={p.noun.form}>
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
            <code className="secret break-all" data-testid={p.rawKeyTestId}>
              {mint.data.rawKey}
            </code>
            <CopyButton text={mint.data.rawKey} label="Copy key" />
          </div>
        </div>
      )}
    </Card>
  );
}
