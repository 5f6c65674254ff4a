import { valueLabel } from "../../components/channels";
import { DataTable } from "../../components/DataTable";

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

interface Step {
  index: number;
  label: string;
  count: number;
  conversionFromStart: number;
}

/** The funnel per value of a dimension: a row per value, people at each step and the share of entrants. */
export function FunnelBreakdown({
  by = "",
  label,
  caption = `Funnel by ${label.toLowerCase()}`,
  steps,
  groups,
}: {
  /** the dimension (its values are labelled: channels) */
  by?: string;
  label: string;
  /** the table's name (a dashboard tile names it after the insight) */
  caption?: string;
  steps: Step[];
  groups: { key: string; steps: Step[] }[];
}) {
  return (
    <DataTable
      caption={caption}
      rows={groups}
      rowKey={(g) => g.key}
      columns={[
        { header: label, cell: (g) => <span className="break-all">{valueLabel(by, g.key)}</span> },
        ...steps.map((s) => ({
          header: `${s.index + 1}. ${s.label}`,
          numeric: true as const,
          // the people at the step; the share of entrants is this over the first step's column
          csvHeader: `${s.index + 1}. ${s.label} (people)`,
          csv: (g: { steps: Step[] }) => g.steps[s.index]?.count,
          cell: (g: { steps: Step[] }) => {
            const at = g.steps[s.index]!;
            return s.index === 0
              ? at.count.toLocaleString()
              : `${at.count.toLocaleString()} (${percent(at.conversionFromStart)})`;
          },
        })),
      ]}
    />
  );
}
