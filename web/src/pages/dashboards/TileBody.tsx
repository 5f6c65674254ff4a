import type { ApiData } from "../../api/client";
import { channelLabel, valueLabel } from "../../components/channels";
import { DataTable } from "../../components/DataTable";
import { Count } from "../../components/estimate";
import { FUNNEL_DIMENSIONS } from "../../components/dimensions";
import { currencyNote, moneyFormat } from "../../components/money";
import { FunnelBreakdown } from "../funnels/FunnelBreakdown";
import { TimeseriesTile, TrendsChartTile } from "./SeriesTile";

export type Tile = ApiData<"/api/dashboards/{id}/results", "get">["tiles"][number];
type Answer = NonNullable<Tile["answer"]>;
type Of<K extends Answer["kind"]> = Extract<Answer, { kind: K }>["result"];

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;
const count = (n: number) => n.toLocaleString();
const money = (n: number) =>
  n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** The overview's headline numbers, revenue included and worded as the overview words it. */
function Summary({ r }: { r: Of<"summary"> }) {
  const note = currencyNote(r.revenueCurrencies);
  const facts: [string, React.ReactNode][] = [
    ["Visitors", <Count key="v" n={r.visitors} estimate={r.visitorsEstimate} />],
    ["Leads", count(r.leads)],
    ["Conversions", count(r.conversions)],
    ["Conversion rate", percent(r.conversionRate)],
    [
      r.revenueCurrency ? `Revenue (${r.revenueCurrency})` : "Revenue",
      moneyFormat(r.revenueCurrency)(r.revenue),
    ],
  ];
  return (
    <>
      <dl className="tile-facts">
        {facts.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {note && r.revenue !== 0 && <p className="muted small">Revenue: {note}.</p>}
    </>
  );
}

/** The funnel's steps and, when it was saved with one, its breakdown (as the funnels page shows it). */
function Funnel({ name, r }: { name: string; r: Of<"funnel"> }) {
  const label = FUNNEL_DIMENSIONS.find((d) => d.value === r.breakdown?.by)?.label ?? "Value";
  return (
    <>
      <DataTable
        caption={`${name}, table`}
        rows={r.steps}
        rowKey={(s) => String(s.index)}
        columns={[
          { header: "Step", cell: (s) => `${s.index + 1}. ${s.label}` },
          { header: "People", numeric: true, cell: (s) => count(s.count), csv: (s) => s.count },
          {
            header: "From start",
            numeric: true,
            cell: (s) => percent(s.conversionFromStart),
            csvHeader: "From start (fraction)",
            csv: (s) => s.conversionFromStart,
          },
        ]}
      />
      {r.breakdown &&
        (r.breakdown.groups.length === 0 ? (
          <p className="muted small">Nobody entered the funnel in this period.</p>
        ) : (
          <>
            <p className="muted small">By {label.toLowerCase()} of the session people entered in:</p>
            <FunnelBreakdown
              by={r.breakdown.by}
              label={label}
              caption={`${name}, by ${label.toLowerCase()}`}
              steps={r.steps}
              groups={r.breakdown.groups}
            />
          </>
        ))}
    </>
  );
}

/** One saved insight's result, drawn by its kind (the same for a dashboard and its public link). */
export function TileBody({ name, answer }: { name: string; answer: Answer }) {
  switch (answer.kind) {
    case "summary":
      return <Summary r={answer.result} />;
    case "timeseries":
      return <TimeseriesTile name={name} r={answer.result} />;
    case "breakdown": {
      const by = answer.result.by;
      return (
        <DataTable
          caption={`${name}, table`}
          rows={answer.result.rows}
          rowKey={(r) => r.key}
          columns={[
            {
              header: by === "channel" ? "Channel" : by.replaceAll("_", " "),
              cell: (r) => valueLabel(by, r.key),
            },
            {
              header: "Visitors",
              numeric: true,
              cell: (r) => <Count n={r.visitors} estimate={r.visitorsEstimate} />,
              csv: (r) => r.visitors,
            },
            {
              header: "Conversions",
              numeric: true,
              cell: (r) => count(r.conversions),
              csv: (r) => r.conversions,
            },
            { header: "Revenue", numeric: true, cell: (r) => money(r.revenue), csv: (r) => r.revenue },
          ]}
        />
      );
    }
    case "funnel":
      return <Funnel name={name} r={answer.result} />;
    case "retention": {
      const width = Math.min(8, Math.max(0, ...answer.result.cohorts.map((c) => c.returned.length)));
      const unit = answer.result.interval === "week" ? "Week" : "Day";
      return (
        <DataTable
          caption={`${name}, table`}
          rows={answer.result.cohorts}
          rowKey={(c) => c.start}
          columns={[
            { header: "Cohort", cell: (c) => c.start },
            { header: "People", numeric: true, cell: (c) => count(c.size), csv: (c) => c.size },
            ...Array.from({ length: Math.max(0, width - 1) }, (_, i) => ({
              header: `${unit} ${i + 1}`,
              numeric: true as const,
              cell: (c: { size: number; returned: number[] }) =>
                c.returned[i + 1] === undefined ? "" : c.size ? percent(c.returned[i + 1]! / c.size) : "–",
              csvHeader: `${unit} ${i + 1} (fraction returned)`,
              csv: (c: { size: number; returned: number[] }) =>
                c.returned[i + 1] === undefined || !c.size ? null : c.returned[i + 1]! / c.size,
            })),
          ]}
        />
      );
    }
    case "attribution":
      return (
        <DataTable
          caption={`${name}, table`}
          rows={answer.result.channels}
          rowKey={(c) => c.channel}
          columns={[
            { header: "Channel", cell: (c) => channelLabel(c.channel) },
            {
              header: "Credited conversions",
              numeric: true,
              cell: (c) => c.creditedConversions.toFixed(2),
              csv: (c) => c.creditedConversions,
            },
            { header: "Revenue", numeric: true, cell: (c) => money(c.revenue), csv: (c) => c.revenue },
          ]}
        />
      );
    case "trends":
      return <TrendsChartTile name={name} r={answer.result} />;
    case "paths":
      return (
        <DataTable
          caption={`${name}, table`}
          rows={answer.result.paths}
          rowKey={(p) => p.nodes.join("\u0000")}
          columns={[
            {
              header: `Path ${answer.result.direction} ${answer.result.start}`,
              cell: (p) => p.nodes.join(" → "),
            },
            { header: "Sessions", numeric: true, cell: (p) => count(p.sessions), csv: (p) => p.sessions },
          ]}
        />
      );
  }
}
