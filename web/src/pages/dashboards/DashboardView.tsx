import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";
import { api, call } from "../../api/client";
import { preloadChart } from "../../components/Chart";
import { FilterBar } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import type { PeriodQuery } from "../../components/period";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { ComputedNote } from "./ComputedNote";
import { DashboardEditor } from "./DashboardEditor";
import { DashboardRange, useDashboardRange } from "./DashboardRange";
import { SharePanel } from "./SharePanel";
import { SubscriptionsPanel } from "./SubscriptionsPanel";
import { TileGrid } from "./TileGrid";
import { dashboardKeys } from "./model";

preloadChart();

const rangeText = (r: PeriodQuery) =>
  r.period === "custom" ? `${r.from} to ${r.to}` : `the last ${r.period.replace("d", " days")}`;

/** One dashboard: its tiles' results on the grid, editing, sharing and deleting it. */
export function DashboardView() {
  const { id = "" } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const editing = params.get("edit") === "1";
  const setEditing = (on: boolean) =>
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      if (on) out.set("edit", "1");
      else out.delete("edit");
      return out;
    });
  const [sharing, setSharing] = useState(false);
  const [emailing, setEmailing] = useState(false);
  // The dashboard's period and filter (URL state): every tile inherits them while they are set.
  const [range, setRange] = useDashboardRange();
  const { param: filter } = useFilter();
  const query = { ...(range ?? {}), ...(filter ? { filter } : {}) };
  const key = [...dashboardKeys.results(id), range, filter ?? null] as const;
  const results = useQuery({
    queryKey: key,
    queryFn: () => call(api.GET("/api/dashboards/{id}/results", { params: { path: { id }, query } })),
  });
  // Refresh: the server computes now (the results are otherwise a kept answer) and this view shows it.
  const refresh = useMutation({
    mutationFn: () =>
      call(
        api.GET("/api/dashboards/{id}/results", {
          params: { path: { id }, query: { ...query, refresh: true } },
        }),
      ),
    onSuccess: (data) => queryClient.setQueryData(key, data),
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE("/api/dashboards/{id}", { params: { path: { id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: dashboardKeys.list });
      navigate("/dashboards");
    },
  });

  const controls = (
    <div className="dashboard-controls">
      <DashboardRange value={range} onChange={setRange} />
      <FilterBar />
    </div>
  );
  if (results.isPending)
    return (
      <>
        {controls}
        <PageSkeleton label="Running the dashboard's insights" />
      </>
    );
  if (results.isError)
    return (
      <>
        <PageHeader title="Dashboard" />
        {controls}
        <ErrorState error={results.error} retry={() => void results.refetch()} />
      </>
    );
  const { dashboard, tiles, computedAt } = results.data;
  return (
    <>
      <PageHeader title={dashboard.name}>
        <button type="button" className="button secondary" onClick={() => setEditing(!editing)}>
          {editing ? "Stop editing" : "Edit tiles"}
        </button>
        <button
          type="button"
          className="button secondary"
          aria-expanded={emailing}
          onClick={() => setEmailing(!emailing)}
        >
          Email this dashboard
        </button>
        <button
          type="button"
          className="button secondary"
          aria-expanded={sharing}
          onClick={() => setSharing(!sharing)}
        >
          Share
        </button>
        <button
          type="button"
          className="button danger"
          onClick={() => {
            if (window.confirm(`Delete the dashboard “${dashboard.name}”? Its insights stay.`))
              remove.mutate();
          }}
        >
          Delete dashboard
        </button>
      </PageHeader>
      {dashboard.description && <p className="muted">{dashboard.description}</p>}
      {remove.isError && <ErrorState title="Not deleted" error={remove.error} />}
      {controls}
      {range && (
        <p className="muted small">
          Every tile shows {rangeText(range)}, not its saved period (attribution tiles keep theirs for a
          custom range).
        </p>
      )}
      {emailing && (
        <Card title="Email this dashboard">
          <SubscriptionsPanel dashboardId={id} />
        </Card>
      )}
      {sharing && (
        <Card title="Share">
          <SharePanel id={id} shared={dashboard.shared} />
        </Card>
      )}
      {editing && <DashboardEditor id={id} items={dashboard.items} onDone={() => setEditing(false)} />}
      {tiles.length === 0 ? (
        <EmptyState title="This dashboard has no tile yet">Edit its tiles to add saved insights.</EmptyState>
      ) : (
        <>
          <ComputedNote
            computedAt={computedAt}
            refreshing={refresh.isPending}
            onRefresh={() => refresh.mutate()}
          />
          {refresh.isError && <ErrorState title="Not refreshed" error={refresh.error} />}
          <TileGrid tiles={tiles} />
        </>
      )}
    </>
  );
}
