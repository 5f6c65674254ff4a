import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { dangerColumn } from "../../components/TableRows";
import { Field } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { reportUrl } from "./reportUrl";
import { insightKeys, useInsights } from "../../components/insights";
import { dashboardKeys, useDashboards } from "./model";

const KIND_LABELS: Record<string, string> = {
  summary: "Summary",
  timeseries: "Time series",
  breakdown: "Breakdown",
  funnel: "Funnel",
  retention: "Retention",
  attribution: "Attribution",
  paths: "Paths",
  trends: "Trends",
};

/** The project's dashboards (newest first) and saved insights, with "New dashboard". */
export function DashboardList() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const dashboards = useDashboards();
  const insights = useInsights();
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => call(api.POST("/api/dashboards", { body: { name: name.trim() } })),
    onSuccess: (d) => {
      void queryClient.invalidateQueries({ queryKey: dashboardKeys.list });
      navigate(`/dashboards/${d.id}?edit=1`);
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/insights/{id}", { params: { path: { id } } })),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: insightKeys.all });
      void queryClient.invalidateQueries({ queryKey: dashboardKeys.anyOne });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <>
      <PageHeader title="Dashboards" />
      <Card title="Your dashboards">
        {dashboards.isPending ? (
          <PageSkeleton label="Loading dashboards" />
        ) : dashboards.isError ? (
          <ErrorState error={dashboards.error} retry={() => void dashboards.refetch()} />
        ) : dashboards.data.items.length === 0 ? (
          <EmptyState title="No dashboard yet">
            Save reports as insights ("Save as insight" on every report), then put them on a dashboard.
          </EmptyState>
        ) : (
          <ul className="dash-list">
            {dashboards.data.items.map((d) => (
              <li key={d.id}>
                <Link to={`/dashboards/${d.id}`}>{d.name}</Link>{" "}
                <span className="muted small">
                  {d.items.length} tile{d.items.length === 1 ? "" : "s"}
                  {d.shared ? " · shared by link" : ""}
                </span>
              </li>
            ))}
          </ul>
        )}
        <form className="form-row" onSubmit={submit} aria-label="New dashboard">
          <Field
            label="Dashboard name"
            required
            maxLength={200}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit" className="button" disabled={create.isPending}>
            New dashboard
          </button>
        </form>
        {create.isError && <ErrorState title="Not created" error={create.error} />}
      </Card>
      <Card title="Saved insights">
        {insights.isPending ? (
          <PageSkeleton label="Loading insights" />
        ) : insights.isError ? (
          <ErrorState error={insights.error} retry={() => void insights.refetch()} />
        ) : insights.data.items.length === 0 ? (
          <EmptyState title="No saved insight yet">
            Open a report (Overview, Breakdowns, Funnels, Retention, Paths, Attribution) and press "Save as
            insight".
          </EmptyState>
        ) : (
          <DataTable
            caption="Saved insights"
            rows={insights.data.items}
            rowKey={(i) => i.id}
            columns={[
              { header: "Name", cell: (i) => <Link to={reportUrl(i.kind, i.settings)}>{i.name}</Link> },
              { header: "Report", cell: (i) => KIND_LABELS[i.kind] ?? i.kind },
              { header: "Saved", cell: (i) => i.createdAt.slice(0, 10) },
              dangerColumn({
                text: "Delete",
                label: (i: { id: string; name: string }) => `Delete insight ${i.name}`,
                busy: remove.isPending,
                onClick: (i: { id: string; name: string }) => {
                  if (window.confirm(`Delete “${i.name}”? Its tiles leave every dashboard.`))
                    remove.mutate(i.id);
                },
              }),
            ]}
          />
        )}
        {remove.isError && <ErrorState title="Not deleted" error={remove.error} />}
      </Card>
    </>
  );
}
