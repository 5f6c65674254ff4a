import { DataTable } from "../../components/DataTable";
import { FilterValue } from "../../components/FilterBar";
import { Card, EmptyState } from "../../components/states";

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

interface Channel {
  channel: string;
  visitors: number;
  conversions: number;
  convertedVisitors: number;
  conversionRate: number;
}

/** The period's top channels; the conversion rate per person, as the tile's. */
export function TopChannels({ channels }: { channels: Channel[] }) {
  return (
    <Card title="Top channels">
      {channels.length === 0 ? (
        <EmptyState title="No visits in this period yet">
          Add the snippet from Settings to your site, or send events to <code>POST /api/events</code>.
        </EmptyState>
      ) : (
        <DataTable
          caption="Top channels"
          rows={channels}
          rowKey={(c) => c.channel}
          columns={[
            {
              header: "Channel",
              // One label per channel, as every page shows it (components/channels.ts).
              cell: (c) => <FilterValue filterKey="channel" value={c.channel} />,
            },
            { header: "Visitors", cell: (c) => c.visitors.toLocaleString(), numeric: true },
            { header: "Conversions", cell: (c) => c.conversions.toLocaleString(), numeric: true },
            {
              header: "Converted visitors",
              cell: (c) => c.convertedVisitors.toLocaleString(),
              numeric: true,
            },
            {
              header: "Conversion rate",
              cell: (c) => (c.visitors > 0 ? percent(c.conversionRate) : "–"),
              numeric: true,
            },
          ]}
        />
      )}
    </Card>
  );
}
