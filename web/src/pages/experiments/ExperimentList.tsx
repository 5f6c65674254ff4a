import { Link, useSearchParams } from "react-router";
import { DataTable } from "../../components/DataTable";
import { SelectField } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { formatConfidence, MODES, STATUSES, type Status, useExperimentList } from "./model";

/** Every experiment of the project, filtered by status (kept in the URL, so it deep-links). */
export function ExperimentList() {
  const [params, setParams] = useSearchParams();
  const status = STATUSES.find((s) => s === params.get("status"));
  const list = useExperimentList(status);
  const modeLabel = (m: string) => MODES.find((x) => x.value === m)?.label.split(" (")[0] ?? m;

  return (
    <>
      <PageHeader title="Experiments">
        <Link className="button" to="/experiments/new">
          New experiment
        </Link>
      </PageHeader>
      <Card>
        <div className="form-row">
          <SelectField
            label="Status"
            value={status ?? ""}
            onChange={(e) => setParams(e.target.value ? { status: e.target.value } : {})}
            options={[{ value: "", label: "All" }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
          />
        </div>
        {list.isPending ? (
          <PageSkeleton label="Loading experiments" />
        ) : list.isError ? (
          <ErrorState error={list.error} retry={() => void list.refetch()} />
        ) : list.data.length === 0 ? (
          <EmptyState
            title={status ? `No ${status} experiments` : "No experiments yet"}
            action={
              status ? undefined : (
                <Link className="button" to="/experiments/new">
                  Create your first experiment
                </Link>
              )
            }
          >
            An experiment shows each visitor of a page one variant and counts who converts.
          </EmptyState>
        ) : (
          <DataTable
            caption="Experiments"
            rows={list.data}
            rowKey={(e) => e.id}
            columns={[
              { header: "Name", cell: (e) => <Link to={`/experiments/${e.id}`}>{e.name}</Link> },
              {
                header: "Status",
                cell: (e) => (
                  <span className={`badge status-${e.status}`} data-testid="experiment-status">
                    {e.status as Status}
                  </span>
                ),
              },
              { header: "Type", cell: (e) => modeLabel(e.mode) },
              {
                header: "Exposures",
                numeric: true,
                cell: (e) => e.results.totalExposures.toLocaleString(),
                csv: (e) => e.results.totalExposures,
              },
              {
                header: "Conversions",
                numeric: true,
                cell: (e) => e.results.totalConversions.toLocaleString(),
                csv: (e) => e.results.totalConversions,
              },
              // The results page's one figure (the verdict's: the sequential test's, or a bandit's
              // probability best), not the single-look Bayesian `confidence` beside it.
              {
                header: "Confidence",
                numeric: true,
                cell: (e) => formatConfidence(e.results.verdict.confidence),
                csvHeader: "Confidence (fraction)",
                csv: (e) => e.results.verdict.confidence,
              },
            ]}
          />
        )}
      </Card>
    </>
  );
}
