import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import { CopyCode } from "../../components/CopyButton";
import { ErrorState } from "../../components/states";
import { dashboardKeys } from "./model";

/**
 * The dashboard's public link: anyone holding it sees the results, read-only, without signing in.
 * The link is shown once (only its hash is stored); a new one replaces it; revoking ends it at once.
 */
export function SharePanel({ id, shared }: { id: string; shared: { since: string } | null }) {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: dashboardKeys.one(id) });
  const share = useMutation({
    mutationFn: () => call(api.POST("/api/dashboards/{id}/share", { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const revoke = useMutation({
    mutationFn: () => call(api.DELETE("/api/dashboards/{id}/share", { params: { path: { id } } })),
    onSuccess: () => {
      share.reset();
      refresh();
    },
  });
  // Built from the page's origin: the address this dashboard is served at.
  const url = share.data ? `${window.location.origin}/share/${share.data.token}` : null;
  return (
    <div className="share-panel">
      {url ? (
        <>
          <p>Anyone with this link sees this dashboard's results, read-only. It is shown only now:</p>
          <CopyCode code={url} label="Copy link" testId="share-url" />
        </>
      ) : shared ? (
        <p className="muted">
          Shared by a public link since {shared.since.slice(0, 10)}. A new link replaces it (the old one stops
          working).
        </p>
      ) : (
        <p className="muted">
          Not shared. A public link shows the results to anyone who has it, without signing in.
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          className="button secondary"
          onClick={() => share.mutate()}
          disabled={share.isPending}
        >
          {shared || url ? "Create a new link" : "Create public link"}
        </button>
        {(shared || url) && (
          <button
            type="button"
            className="button danger"
            disabled={revoke.isPending}
            onClick={() => {
              if (window.confirm("Revoke the public link? It stops working at once.")) revoke.mutate();
            }}
          >
            Revoke link
          </button>
        )}
      </div>
      {share.isError && <ErrorState title="No link created" error={share.error} />}
      {revoke.isError && <ErrorState title="Not revoked" error={revoke.error} />}
      {revoke.isSuccess && (
        <p role="status" className="ok-text">
          The public link was revoked.
        </p>
      )}
    </div>
  );
}
