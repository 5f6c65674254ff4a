import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api, call } from "../../api/client";
import { Card, ErrorState } from "../../components/states";
import { kindLabel, when } from "./kinds";
import { integrationKeys } from "./model";

/** "Sync now": starts a sync of every connector, then polls its progress until it ends. */
export function SyncPanel({ connectedCount }: { connectedCount: number }) {
  const queryClient = useQueryClient();
  const [syncId, setSyncId] = useState<string | null>(null);
  const run = useMutation({
    mutationFn: () => call(api.GET("/api/sync/run")),
    onSuccess: (s) => setSyncId(s.syncId),
  });
  const progress = useQuery({
    queryKey: integrationKeys.sync(syncId),
    queryFn: () => call(api.GET("/api/sync/{syncId}", { params: { path: { syncId: syncId! } } })),
    enabled: syncId !== null,
    refetchInterval: (q) => (q.state.data && q.state.data.status !== "running" ? false : 1000),
  });
  const done = progress.data !== undefined && progress.data.status !== "running";
  // When the sync ends, the connectors' status and last sync have changed.
  useEffect(() => {
    if (done) void queryClient.invalidateQueries({ queryKey: integrationKeys.connectors });
  }, [done, queryClient]);

  return (
    <Card
      title="Sync"
      actions={
        <button
          type="button"
          className="button"
          disabled={connectedCount === 0 || run.isPending || (syncId !== null && !done)}
          onClick={() => run.mutate()}
        >
          Sync now
        </button>
      }
    >
      {connectedCount === 0 ? (
        <p className="muted">Connect a platform below to sync its data.</p>
      ) : !syncId ? (
        <p className="muted">Connectors sync on a schedule; start one now to fetch the latest data.</p>
      ) : progress.isError ? (
        <ErrorState error={progress.error} />
      ) : (
        <div role="status" aria-live="polite">
          <p data-testid="sync-status">
            {progress.data
              ? progress.data.status === "running"
                ? "Syncing…"
                : progress.data.status === "completed"
                  ? "Sync completed."
                  : "Sync completed with errors."
              : "Starting…"}
          </p>
          {progress.data && (
            <ul className="sync-list">
              {progress.data.connectors.map((c) => (
                <li key={c.type}>
                  {kindLabel(c.type)}: {c.status}
                  {c.status === "done" && ` (${c.rows} rows, ${when(c.finishedAt, "")})`}
                  {c.error && ` — ${c.error}`}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {run.isError && <ErrorState title="Not started" error={run.error} />}
    </Card>
  );
}
