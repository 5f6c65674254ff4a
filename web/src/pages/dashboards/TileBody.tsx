import type { ApiData } from "../../api/client";
import { channelLabel, valueLabel } from "../../components/channels";
import { Chart } from "../../components/Chart";
import { DataTable } from "../../components/DataTable";

export type Tile = ApiData<"/api/dashboards/{id}/results", "get">["tiles"][number];
type Answer = NonNullable<Tile["answer"]>;
type Of<K extends Answer["kind"]> = Extract<Answer, { kind: K }>["result"];

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;
const count = (n: number) => n.toLocaleString();
const money = (n: number) =>
  n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

function Summary({ r }: { r: Of<"summary"> }) {
  const facts: [string, string][] = [
    ["Visitors", count(r.visitors)],
    ["Leads", count(r.leads)],
    ["Conversions", count(r.conversions)],
    ["Conversion rate", percent(r.conversionRate)],
  ];
  return (
    <dl className="tile-facts">
      {facts.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One saved insight's result, drawn by its kind (the same for a dashboard and its public link). */
export function TileBody({ name, answer }: { name: string; answer: Answer }) {
  switch (answer.kind) {
    case "summary":
      return <Summary r={answer.result} />;
    case "timeseries": {
      const p = answer.result.points;
      return (
        <Chart
          label={`${name}: visitors and conversions per ${answer.result.interval}`}
          height={180}
          dates={p.map((x) => x.date)}
          series={[
            { label: "Visitors", values: p.map((x) => x.visitors), color: "#4f46e5" },
            { label: "Conversions", values: p.map((x) => x.conversions), color: "#b45309" },
          ]}
        />
      );
    }
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
            { header: "Visitors", numeric: true, cell: (r) => count(r.visitors) },
            { header: "Conversions", numeric: true, cell: (r) => count(r.conversions) },
            { header: "Revenue", numeric: true, cell: (r) => money(r.revenue) },
          ]}
        />
      );
    }
    case "funnel":
      return (
        <DataTable
          caption={`${name}, table`}
          rows={answer.result.steps}
          rowKey={(s) => String(s.index)}
          columns={[
            { header: "Step", cell: (s) => `${s.index + 1}. ${s.label}` },
            { header: "People", numeric: true, cell: (s) => count(s.count) },
            { header: "From start", numeric: true, cell: (s) => percent(s.conversionFromStart) },
          ]}
        />
      );
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
            { header: "People", numeric: true, cell: (c) => count(c.size) },
            ...Array.from({ length: Math.max(0, width - 1) }, (_, i) => ({
              header: `${unit} ${i + 1}`,
              numeric: true,
              cell: (c: { size: number; returned: number[] }) =>
                c.returned[i + 1] === undefined ? "" : c.size ? percent(c.returned[i + 1]! / c.size) : "–",
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
            { header: "Credited conversions", numeric: true, cell: (c) => c.creditedConversions.toFixed(2) },
            { header: "Revenue", numeric: true, cell: (c) => money(c.revenue) },
          ]}
        />
      );
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
            { header: "Sessions", numeric: true, cell: (p) => count(p.sessions) },
          ]}
        />
      );
  }
}
