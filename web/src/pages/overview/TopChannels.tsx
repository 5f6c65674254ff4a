import { DataTable } from "../../components/DataTable";
import { Count, type Estimate } from "../../components/estimate";
import { FilterValue } from "../../components/FilterBar";
import { Card, EmptyState } from "../../components/states";

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

interface Channel {
  channel: string;
  visitors: number;
  visitorsEstimate?: Estimate;
  conversions: number;
  revenue: number;
  firstTouchVisitors: number;
  convertedVisitors: number;
  conversionRate: number;
}

/**
 * The period's top channels: the traffic each brought, and its conversion rate on one basis — the
 * period's visitors who first came from it, and those of them who converted — with the revenue of
 * the conversions it is credited with (first touch), as `money` shows the summary's currency.
 */
export function TopChannels({ channels, money }: { channels: Channel[]; money: (n: number) => string }) {
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
            {
              header: "Visitors",
              cell: (c) => <Count n={c.visitors} estimate={c.visitorsEstimate} />,
              numeric: true,
              csv: (c) => c.visitors,
            },
            {
              header: "Conversions",
              cell: (c) => c.conversions.toLocaleString(),
              numeric: true,
              csv: (c) => c.conversions,
            },
            {
              header: "Revenue",
              cell: (c) => money(c.revenue),
              numeric: true,
              csvHeader: "Revenue (first touch)",
              csv: (c) => c.revenue,
            },
            {
              header: "First came from it",
              cell: (c) => c.firstTouchVisitors.toLocaleString(),
              numeric: true,
              csvHeader: "Visitors who first came from it",
              csv: (c) => c.firstTouchVisitors,
            },
            {
              header: "Of them converted",
              cell: (c) => c.convertedVisitors.toLocaleString(),
              numeric: true,
              csvHeader: "Of them converted",
              csv: (c) => c.convertedVisitors,
            },
            {
              header: "Conversion rate",
              cell: (c) => (c.firstTouchVisitors > 0 ? percent(c.conversionRate) : "–"),
              numeric: true,
              csvHeader: "Conversion rate (fraction, first touch)",
              csv: (c) => (c.firstTouchVisitors > 0 ? c.conversionRate : null),
            },
          ]}
        />
      )}
    </Card>
  );
}
