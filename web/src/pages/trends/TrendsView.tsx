import { Chart } from "../../components/Chart";
import { DataTable } from "../../components/DataTable";
import { StatTile } from "../../components/StatTile";
import { EmptyState } from "../../components/states";
import { type Line, bucketLabel, show } from "./lines";
import type { Interval, View } from "./url";

/** Distinct hues that keep 3:1 against the light and the dark card. */
const COLORS = [
  "#4f46e5",
  "#b45309",
  "#0f766e",
  "#be185d",
  "#2563eb",
  "#7c3aed",
  "#15803d",
  "#c2410c",
  "#0e7490",
  "#9f1239",
];

/** The trend as a line or bar chart, the totals as numbers, or a table of buckets × lines. */
export function TrendsView({
  view,
  lines,
  buckets,
  interval,
  label = `Trends per ${interval}`,
  compact = false,
}: {
  view: View;
  lines: Line[];
  /** the buckets' starts (ISO), shared by every line */
  buckets: string[];
  interval: Interval;
  /** the chart's name (a dashboard tile gives its insight's) */
  label?: string;
  /** a dashboard tile: shorter, without annotations */
  compact?: boolean;
}) {
  if (lines.length === 0)
    return <EmptyState title="No events">No events of these series in this period.</EmptyState>;
  if (view === "number")
    return (
      <section className="tiles" aria-label="Trends totals">
        {lines.map((l) =>
          l.total === null ? (
            <div key={l.key} className="tile">
              <div className="tile-label">{l.label}</div>
              <div className="tile-value">–</div>
            </div>
          ) : (
            <StatTile
              key={l.key}
              label={l.label}
              value={l.total}
              previous={l.compare?.total ?? undefined}
              format={l.format}
              detail="in the period"
            />
          ),
        )}
      </section>
    );
  if (view === "table") {
    const rows = buckets.map((b, i) => ({ b, i }));
    return (
      <DataTable
        caption="Trends table"
        rows={rows}
        rowKey={(r) => r.b}
        columns={[
          {
            header: interval[0]!.toUpperCase() + interval.slice(1),
            cell: (r) => bucketLabel(r.b, interval),
            csv: (r) => r.b,
          },
          ...lines.flatMap((l) => [
            {
              header: l.label,
              numeric: true as const,
              cell: (r: { i: number }) => show(l, l.data[r.i]),
              csv: (r: { i: number }) => l.data[r.i] ?? null,
            },
            ...(l.compare
              ? [
                  {
                    header: `${l.label} (previous period)`,
                    numeric: true as const,
                    cell: (r: { i: number }) => show(l, l.compare?.data[r.i]),
                    csv: (r: { i: number }) => l.compare?.data[r.i] ?? null,
                  },
                ]
              : []),
          ]),
        ]}
      />
    );
  }
  const x =
    interval === "hour"
      ? { dates: buckets.map((b) => b.slice(0, 10)), times: buckets }
      : { dates: buckets.map((b) => b.slice(0, 10)) };
  // A null (nothing to average, a division by zero) is a gap in the line, as uPlot draws null; the
  // previous period may have a bucket fewer (a week or month cut differently), so it is padded.
  const values = (v: (number | null)[]) => buckets.map((_, k) => v[k] ?? null) as number[];
  // Formulas (a rate, a ratio) read on their own axis when series are drawn beside them.
  const right = (l: Line) => l.formula && lines.some((x) => !x.formula);
  return (
    <Chart
      label={label}
      {...x}
      height={compact ? 180 : undefined}
      annotate={!compact}
      bars={view === "bar"}
      series={lines.flatMap((l, i) => [
        {
          label: l.label,
          values: values(l.data),
          color: COLORS[i % COLORS.length]!,
          right: right(l),
          total: `${show(l, l.total)} in the period`,
        },
        ...(l.compare
          ? [
              {
                label: `${l.label} (previous period)`,
                values: values(l.compare.data),
                color: COLORS[i % COLORS.length]!,
                dashed: true,
                right: right(l),
                total: `${show(l, l.compare.total)} in the period`,
              },
            ]
          : []),
      ])}
    />
  );
}
