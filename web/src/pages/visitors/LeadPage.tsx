import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { api, call } from "../../api/client";
import { StatTile } from "../../components/StatTile";
import { EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { Journey } from "./Journey";
import { money } from "./LeadsSection";

/** `/visitors/leads/:id`: a lead's totals and its merged journey across its visitors. */
export function LeadPage() {
  const { id } = useParams();
  const lead = useQuery({
    queryKey: ["leads", "one", id],
    // The list's search matches a lead's exact id.
    queryFn: async () =>
      (await call(api.GET("/api/leads", { params: { query: { q: id!, limit: 1 } } }))).items.find(
        (l) => l.id === id,
      ) ?? null,
  });
  if (lead.isPending) return <PageSkeleton label="Loading the lead" />;
  if (lead.isError) return <ErrorState error={lead.error} retry={() => void lead.refetch()} />;
  const l = lead.data;
  if (!l)
    return (
      <EmptyState title="No such lead" action={<Link to="/visitors">Back to visitors &amp; leads</Link>}>
        Lead {id} is not in this project.
      </EmptyState>
    );
  return (
    <>
      <PageHeader title={l.email ?? l.id}>
        <Link className="button secondary" to="/visitors">
          All visitors &amp; leads
        </Link>
      </PageHeader>
      <p className="muted break-all">
        Lead {l.id} · since {new Date(l.createdAt).toLocaleDateString()} · first touch{" "}
        {[l.firstTouch.channel, l.firstTouch.source].filter(Boolean).join(" / ") || "unknown"}
      </p>
      <div className="tiles">
        <StatTile label="Visitors" value={l.visitors} />
        <StatTile label="Conversions" value={l.conversions} />
        <StatTile label="Revenue" value={l.revenue} format={money} />
      </div>
      {l.visitorIds.length === 0 ? (
        <EmptyState title="No visits yet">
          This lead was created by your server; its web visits appear once linked.
        </EmptyState>
      ) : (
        <Journey visitorId={l.visitorIds[0]!} showLead={false} />
      )}
    </>
  );
}
