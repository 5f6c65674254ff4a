import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { DataTable } from "../../components/DataTable";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { cohortKeys, fetchMembers } from "./model";

/** The first 100 people of a cohort now, each linking to its lead or journey. */
export function CohortMembers({ id }: { id: string }) {
  const members = useQuery({ queryKey: cohortKeys.members(id), queryFn: () => fetchMembers(id) });
  return (
    <Card title="People in the cohort">
      {members.isPending ? (
        <PageSkeleton label="Loading the people" />
      ) : members.isError ? (
        <ErrorState error={members.error} retry={() => void members.refetch()} />
      ) : members.data.items.length === 0 ? (
        <EmptyState title="Nobody is in this cohort now" />
      ) : (
        <>
          <p className="muted">
            {members.data.count.toLocaleString()} people
            {members.data.count > 100 ? ", the first 100 shown" : ""}.
          </p>
          <DataTable
            caption="People in the cohort"
            rows={members.data.items}
            rowKey={(m) => m.leadId ?? `v:${m.visitorId}`}
            columns={[
              {
                header: "Person",
                cell: (m) =>
                  m.leadId ? (
                    <Link to={`/visitors/leads/${encodeURIComponent(m.leadId)}`}>Lead {m.leadId}</Link>
                  ) : (
                    <Link to={`/visitors/v/${encodeURIComponent(m.visitorId ?? "")}`}>
                      Visitor {m.visitorId}
                    </Link>
                  ),
              },
            ]}
          />
        </>
      )}
    </Card>
  );
}
