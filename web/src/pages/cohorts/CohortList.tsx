import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { type Cohort, cohortKeys, fetchCount, useCohorts } from "./model";

/** A cohort's live count (computed when asked). */
function CountCell({ id }: { id: string }) {
  const count = useQuery({ queryKey: cohortKeys.count(id), queryFn: () => fetchCount(id) });
  if (count.isPending) return <span className="muted">counting…</span>;
  if (count.isError) return <span className="error-text">{count.error.message}</span>;
  return <>{count.data.count.toLocaleString()}</>;
}

export function CohortList() {
  const client = useQueryClient();
  const cohorts = useCohorts();
  const remove = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/cohorts/{id}", { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: cohortKeys.all }),
  });
  return (
    <>
      <PageHeader title="Cohorts">
        <Link className="button" to="new">
          New cohort
        </Link>
      </PageHeader>
      <Card title="Saved cohorts">
        {cohorts.isPending ? (
          <PageSkeleton label="Loading the cohorts" />
        ) : cohorts.isError ? (
          <ErrorState error={cohorts.error} retry={() => void cohorts.refetch()} />
        ) : cohorts.data.length === 0 ? (
          <EmptyState title="No cohorts yet">
            A cohort is a saved group of people: who did (or did not do) an event in a window, or whose lead
            has a property. Use it as a filter in every report, in the export, and in a flag's targeting.
          </EmptyState>
        ) : (
          <>
            {remove.isError && <ErrorState error={remove.error} />}
            <DataTable<Cohort>
              caption="Saved cohorts"
              rows={cohorts.data}
              rowKey={(c) => c.id}
              columns={[
                { header: "Name", cell: (c) => <Link to={c.id}>{c.name}</Link> },
                {
                  header: "People now",
                  numeric: true,
                  cell: (c) => <CountCell id={c.id} />,
                  // the count the row shows, once computed
                  csv: (c) =>
                    client.getQueryData<Awaited<ReturnType<typeof fetchCount>>>(cohortKeys.count(c.id))
                      ?.count,
                },
                {
                  header: "Reports",
                  cell: (c) => (
                    <Link
                      to={`/?filter=${encodeURIComponent(JSON.stringify([{ key: "cohort", op: "is", value: c.id }]))}`}
                    >
                      Overview of {c.name}
                    </Link>
                  ),
                },
                {
                  header: "Actions",
                  noCsv: true,
                  cell: (c) => (
                    <button
                      type="button"
                      className="button secondary small"
                      disabled={remove.isPending}
                      onClick={() => remove.mutate(c.id)}
                    >
                      Delete {c.name}
                    </button>
                  ),
                },
              ]}
            />
          </>
        )}
      </Card>
    </>
  );
}
