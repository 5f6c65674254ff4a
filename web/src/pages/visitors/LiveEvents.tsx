import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { channelLabel } from "../../components/channels";
import { visitorKeys } from "./model";

/** The project's newest events, refreshed every few seconds while the page is open. */
export function LiveEvents() {
  const recent = useQuery({
    queryKey: visitorKeys.recentEvents,
    queryFn: () => call(api.GET("/api/events/recent", { params: { query: { limit: 25 } } })),
    refetchInterval: 4000,
  });
  return (
    <Card title="Live events">
      {recent.isPending ? (
        <PageSkeleton label="Loading events" />
      ) : recent.isError ? (
        <ErrorState error={recent.error} retry={() => void recent.refetch()} />
      ) : recent.data.length === 0 ? (
        <EmptyState title="No events yet">Events appear here within seconds of arriving.</EmptyState>
      ) : (
        <DataTable
          caption="Newest events"
          rows={recent.data}
          rowKey={(e) => e.id}
          columns={[
            { header: "Time", cell: (e) => new Date(e.timestamp).toLocaleTimeString() },
            { header: "Event", cell: (e) => (e.isBot ? `${e.type} (bot)` : e.type) },
            {
              header: "Visitor",
              cell: (e) => (
                <Link className="break-all" to={`/visitors/v/${encodeURIComponent(e.visitorId)}`}>
                  {e.visitorId}
                </Link>
              ),
            },
            {
              header: "Channel",
              cell: (e) => [channelLabel(e.channel), e.source].filter(Boolean).join(" / "),
            },
            { header: "Page", cell: (e) => <span className="break-all">{e.url}</span> },
          ]}
        />
      )}
    </Card>
  );
}
