import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { channelLabel } from "../../components/channels";
import { visitorKeys } from "./model";

/** A visitor's journey (merged with its lead's other visitors): first touch, then every event. */
export function Journey({ visitorId, showLead = true }: { visitorId: string; showLead?: boolean }) {
  const journey = useQuery({
    queryKey: visitorKeys.journey(visitorId),
    queryFn: () => call(api.GET("/api/identity", { params: { query: { visitorId } } })),
  });
  if (journey.isPending) return <PageSkeleton label="Loading the journey" />;
  if (journey.isError) return <ErrorState error={journey.error} retry={() => void journey.refetch()} />;
  const j = journey.data;
  return (
    <>
      <Card title="Attribution">
        <dl className="facts">
          <dt>First channel</dt>
          <dd data-testid="first-channel">
            {j.attribution.channel ? channelLabel(j.attribution.channel) : "—"}
          </dd>
          <dt>Source</dt>
          <dd>{j.attribution.source ?? "—"}</dd>
          <dt>Landing page</dt>
          <dd className="break-all">{j.attribution.landingPage ?? "—"}</dd>
          <dt>First seen</dt>
          <dd>{new Date(j.firstSeen).toLocaleString()}</dd>
          <dt>Last seen</dt>
          <dd>{new Date(j.lastSeen).toLocaleString()}</dd>
          {showLead && (
            <>
              <dt>Lead</dt>
              <dd>
                {j.leadId ? (
                  <Link to={`/visitors/leads/${encodeURIComponent(j.leadId)}`}>{j.leadId}</Link>
                ) : (
                  "anonymous"
                )}
              </dd>
            </>
          )}
          <dt>Visitors</dt>
          <dd className="break-all">{j.visitorIds.join(", ")}</dd>
        </dl>
      </Card>
      <Card title="Timeline">
        {j.events.length === 0 ? (
          <EmptyState title="No events" />
        ) : (
          <ol className="timeline journey" aria-label="Events, oldest first">
            {j.events.map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: events have no id here; the order is fixed
              <li key={i}>
                <strong>{e.type}</strong>{" "}
                <span className="muted">{new Date(e.timestamp).toLocaleString()}</span>
                <div className="break-all small">{e.url}</div>
              </li>
            ))}
          </ol>
        )}
      </Card>
    </>
  );
}
