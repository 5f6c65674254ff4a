import { useQuery } from "@tanstack/react-query";
import { useParams } from "react-router";
import { api, call } from "../../api/client";
import { preloadChart } from "../../components/Chart";
import { EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { TileGrid } from "../dashboards/TileGrid";
import { shareKeys } from "./model";

preloadChart();

/**
 * A dashboard shared by its public link: no sign-in, read-only. Only what the API's public view
 * holds is shown: names and results (no ids, no settings), refreshed at most once a minute.
 */
export default function SharedDashboardPage() {
  const { token = "" } = useParams();
  const view = useQuery({
    queryKey: shareKeys.dashboard(token),
    queryFn: () => call(api.GET("/api/shared/dashboards/{token}", { params: { path: { token } } })),
    retry: false,
  });
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Lift</span>
        <span className="workspace">Shared dashboard (read-only)</span>
      </header>
      <main id="main" className="page">
        {view.isPending ? (
          <PageSkeleton label="Loading the shared dashboard" />
        ) : view.isError ? (
          <>
            <h1>Shared dashboard</h1>
            <ErrorState title="This link does not show a dashboard" error={view.error} />
          </>
        ) : (
          <>
            <h1>{view.data.name}</h1>
            {view.data.description && <p className="muted">{view.data.description}</p>}
            <p className="muted small period-note">
              Computed {new Date(view.data.computedAt).toLocaleString()} (updated at most once a minute).
            </p>
            {view.data.tiles.length === 0 ? (
              <EmptyState title="This dashboard has no tile yet" />
            ) : (
              <TileGrid tiles={view.data.tiles} />
            )}
          </>
        )}
      </main>
    </div>
  );
}
