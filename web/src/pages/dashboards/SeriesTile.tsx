import { useState } from "react";
import type { ApiData } from "../../api/client";
import { Chart } from "../../components/Chart";
import { DataTable } from "../../components/DataTable";
import { countText, estimateNote } from "../../components/estimate";
import { linesOf } from "../trends/lines";
import { TrendsView } from "../trends/TrendsView";

type Timeseries = ApiData<"/api/analytics/timeseries", "get">;
type Trends = ApiData<"/api/analytics/trends", "post">;

const count = (n: number) => n.toLocaleString();

/** A chart tile's switch between its chart and the table of its numbers. */
function Toggle({ name, table, onChange }: { name: string; table: boolean; onChange: (t: boolean) => void }) {
  return (
    <button type="button" className="link-button tile-view-toggle" onClick={() => onChange(!table)}>
      {table ? "Show chart" : "Show table"}
      <span className="visually-hidden"> of {name}</span>
    </button>
  );
}

/** The overview's time series on a tile: visitors and conversions per bucket, or their table. */
export function TimeseriesTile({ name, r }: { name: string; r: Timeseries }) {
  const [table, setTable] = useState(false);
  const p = r.points;
  return (
    <>
      <Toggle name={name} table={table} onChange={setTable} />
      {table ? (
        <DataTable
          caption={`${name}, table`}
          rows={p}
          rowKey={(x) => x.date}
          columns={[
            { header: r.interval === "week" ? "Week of" : "Day", cell: (x) => x.date },
            { header: "Visitors", numeric: true, cell: (x) => count(x.visitors), csv: (x) => x.visitors },
            {
              header: "Conversions",
              numeric: true,
              cell: (x) => count(x.conversions),
              csv: (x) => x.conversions,
            },
            { header: "Revenue", numeric: true, cell: (x) => x.revenue.toFixed(2), csv: (x) => x.revenue },
          ]}
        />
      ) : (
        <Chart
          label={`${name}: visitors and conversions per ${r.interval}`}
          height={180}
          dates={p.map((x) => x.date)}
          series={[
            {
              label: "Visitors",
              values: p.map((x) => x.visitors),
              color: "#4f46e5",
              // the period's distinct visitors, not the sum of its buckets
              total: `${countText(r.totals.visitors, r.totals.visitorsEstimate)} in the period`,
              totalNote: r.totals.visitorsEstimate && estimateNote(r.totals.visitorsEstimate),
            },
            { label: "Conversions", values: p.map((x) => x.conversions), color: "#b45309" },
          ]}
        />
      )}
    </>
  );
}

/** A saved trend on a tile: its lines as the Trends page draws them, or their table. */
export function TrendsChartTile({ name, r }: { name: string; r: Trends }) {
  const [table, setTable] = useState(false);
  const buckets = (r.series[0] ?? r.formulas[0])?.data.map((p) => p.bucket) ?? [];
  return (
    <>
      <Toggle name={name} table={table} onChange={setTable} />
      <TrendsView
        view={table ? "table" : "line"}
        interval={r.interval}
        buckets={buckets}
        lines={linesOf(r, [], "", "")}
        label={`${name}: trends per ${r.interval}`}
        compact
      />
    </>
  );
}
