import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { ApiError, api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { StatTile } from "../../components/StatTile";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { EraseLead, ErasedLead, type ErasureBody } from "./EraseLead";
import { Journey } from "./Journey";
import { useRevenueMoney } from "../../components/revenue-money";
import { channelLabel } from "../../components/channels";
import { visitorKeys } from "./model";

/** A property's value as text: strings as they are, anything else as JSON. */
const shown = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** `/visitors/leads/:id`: a lead's profile (properties, totals) and its merged journey. */
export function LeadPage() {
  const { id } = useParams();
  const money = useRevenueMoney();
  // keyed by lead: the page stays mounted when another lead is opened
  const [erased, setErased] = useState<{ id: string; erasure: ErasureBody } | null>(null);
  const lead = useQuery({
    queryKey: visitorKeys.lead(id!),
    // A lead of another project, or none, is a 404: shown as "no such lead", not as an error.
    queryFn: () =>
      call(api.GET("/api/leads/{id}", { params: { path: { id: id! } } })).catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }),
  });
  if (erased && erased.id === id) return <ErasedLead erasure={erased.erasure} />;
  if (lead.isPending) return <PageSkeleton label="Loading the lead" />;
  if (lead.isError) return <ErrorState error={lead.error} retry={() => void lead.refetch()} />;
  const l = lead.data;
  if (!l)
    return (
      <EmptyState title="No such lead" action={<Link to="/visitors">Back to visitors &amp; leads</Link>}>
        Lead {id} is not in this project.
      </EmptyState>
    );
  const properties = Object.entries(l.properties).sort(([a], [b]) => a.localeCompare(b));
  return (
    <>
      <PageHeader title={l.email ?? l.id}>
        <Link className="button secondary" to="/visitors">
          All visitors &amp; leads
        </Link>
      </PageHeader>
      <p className="muted break-all">
        Lead {l.id} · since {new Date(l.createdAt).toLocaleDateString()} · first touch{" "}
        {[l.attribution.channel && channelLabel(l.attribution.channel), l.attribution.source]
          .filter(Boolean)
          .join(" / ") || "unknown"}
      </p>
      <div className="tiles">
        <StatTile label="Visitors" value={l.visitors.length} />
        <StatTile label="Conversions" value={l.conversions} />
        <StatTile label="Revenue" value={l.revenue} format={money} />
      </div>
      <Card title="Properties">
        {properties.length === 0 ? (
          <EmptyState title="No properties yet">
            Send <code>traits</code> with <code>POST /api/identity</code>, or <code>$set</code> in an event's
            data.
          </EmptyState>
        ) : (
          <DataTable
            caption="Lead properties"
            rows={properties}
            rowKey={([name]) => name}
            columns={[
              { header: "Property", cell: ([name]) => name },
              { header: "Value", cell: ([, value]) => <span className="break-all">{shown(value)}</span> },
            ]}
          />
        )}
      </Card>
      {l.visitors.length === 0 ? (
        <EmptyState title="No visits yet">
          This lead was created by your server; its web visits appear once linked.
        </EmptyState>
      ) : (
        <Journey visitorId={l.visitors[0]!.visitorId} showLead={false} />
      )}
      <EraseLead
        leadId={l.id}
        label={l.email ?? l.id}
        onErased={(erasure) => setErased({ id: l.id, erasure })}
      />
    </>
  );
}
