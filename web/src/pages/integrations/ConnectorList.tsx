import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { type ApiData, api, call } from "../../api/client";
import { useProjectId } from "../../api/project";
import type { paths } from "../../api/schema";
import { Field } from "../../components/Field";
import { Card, ErrorState, PageSkeleton } from "../../components/states";
import { KINDS, type Kind, when } from "./kinds";
import { SyncPanel } from "./SyncPanel";
import { integrationKeys, useConnectors } from "./model";

type Connector = ApiData<"/api/connectors", "get">[number];
type ConnectorType = paths["/api/connectors"]["post"]["requestBody"]["content"]["application/json"]["type"];

const STATUS: Record<string, string> = {
  connected: "Connected",
  syncing: "Syncing",
  error: "Error",
  needs_reauth: "Needs reconnecting",
};

/** Every kind with its state; connected ones can be synced, disconnected ones connected. */
export function ConnectorList() {
  const connectors = useConnectors();
  if (connectors.isPending) return <PageSkeleton label="Loading connectors" />;
  if (connectors.isError)
    return <ErrorState error={connectors.error} retry={() => void connectors.refetch()} />;
  const byType = new Map(connectors.data.map((c) => [c.type, c]));
  return (
    <>
      <SyncPanel connectedCount={connectors.data.length} />
      <div className="connector-grid">
        {KINDS.map((k) => (
          <ConnectorCard key={k.type} kind={k} connector={byType.get(k.type)} />
        ))}
      </div>
    </>
  );
}

function ConnectorCard({ kind, connector }: { kind: Kind; connector?: Connector }) {
  const queryClient = useQueryClient();
  const projectId = useProjectId();
  const [secret, setSecret] = useState("");
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: integrationKeys.all });
  const connect = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/connectors", {
          body: {
            type: kind.type as ConnectorType,
            credentials: { [kind.credential?.field ?? "apiKey"]: secret },
          },
        }),
      ),
    onSuccess: () => {
      setSecret("");
      invalidate();
    },
  });
  const disconnect = useMutation({
    mutationFn: () => call(api.DELETE("/api/connectors", { body: { type: kind.type as ConnectorType } })),
    onSettled: invalidate,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    connect.mutate();
  };
  // A browser navigation cannot carry x-project-id: the project goes in the query instead.
  const authHref = `/api/connectors/${kind.type}/auth${projectId ? `?projectId=${encodeURIComponent(projectId)}` : ""}`;
  const status = connector ? (STATUS[connector.status] ?? connector.status) : "Not connected";

  return (
    <Card title={kind.label}>
      <p className={`badge status-${connector?.status ?? "none"}`} data-testid={`status-${kind.type}`}>
        {status}
      </p>
      {connector ? (
        <>
          <dl className="facts">
            <dt>Account</dt>
            <dd>{connector.accountName ?? "—"}</dd>
            <dt>Last sync</dt>
            <dd data-testid={`last-sync-${kind.type}`}>{when(connector.lastSync)}</dd>
            <dt>Connected</dt>
            <dd>{when(connector.connectedAt)}</dd>
          </dl>
          {connector.lastError && (
            <p className="form-error" role="alert">
              Last error: {connector.lastError}
            </p>
          )}
          <div className="form-row">
            <Link className="button secondary small" to={`/integrations/${kind.type}`}>
              Metrics<span className="visually-hidden"> of {kind.label}</span>
            </Link>
            {connector.status === "needs_reauth" && kind.oauth && (
              <a className="button small" href={authHref}>
                Reconnect<span className="visually-hidden"> {kind.label}</span>
              </a>
            )}
            <button
              type="button"
              className="button danger small"
              disabled={disconnect.isPending}
              onClick={() => {
                if (window.confirm(`Disconnect ${kind.label}? Its stored credentials are revoked.`))
                  disconnect.mutate();
              }}
            >
              Disconnect<span className="visually-hidden"> {kind.label}</span>
            </button>
          </div>
          {disconnect.isError && <ErrorState title="Not disconnected" error={disconnect.error} />}
        </>
      ) : (
        <>
          {kind.oauth && (
            <a className="button" href={authHref}>
              Connect<span className="visually-hidden"> {kind.label}</span>
            </a>
          )}
          {kind.credential && (
            <form className="form-row" onSubmit={submit} aria-label={`Connect ${kind.label} with a key`}>
              <Field
                label={kind.credential.label}
                hint={kind.credential.hint}
                type="password"
                autoComplete="off"
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
                required
                maxLength={500}
              />
              <button type="submit" className="button secondary" disabled={connect.isPending}>
                Connect with key
              </button>
            </form>
          )}
          {connect.isError && <ErrorState title="Not connected" error={connect.error} />}
        </>
      )}
    </Card>
  );
}
