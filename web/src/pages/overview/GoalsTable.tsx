import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import { analyticsKeys } from "../../components/analyticsKeys";
import { DataTable } from "../../components/DataTable";
import { countText } from "../../components/estimate";
import type { PeriodQuery } from "../../components/period";
import { Card, ErrorState, PageSkeleton } from "../../components/states";
import { useRevenueMoney } from "../../components/revenue-money";

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

/** Each conversion goal side by side, over the same visitors (as Plausible's goal list). */
export function GoalsTable({ period, filter }: { period: PeriodQuery; filter: string | undefined }) {
  const money = useRevenueMoney(period, filter);
  const table = useQuery({
    queryKey: analyticsKeys.goals(period, filter),
    queryFn: () => call(api.GET("/api/analytics/goals", { params: { query: { ...period, filter } } })),
  });
  if (table.isPending) return <PageSkeleton label="Loading the goals" />;
  if (table.isError) return <ErrorState error={table.error} retry={() => void table.refetch()} />;
  const t = table.data;
  if (t.goals.length === 0) return null;
  return (
    <Card title="Goals">
      <p className="muted">
        Each goal's rate is over the same {countText(t.visitors, t.visitorsEstimate)} visitors of the period.
      </p>
      <DataTable
        caption="Goals"
        rows={t.goals}
        rowKey={(g) => g.goalId}
        columns={[
          { header: "Goal", cell: (g) => g.name, csv: (g) => g.name },
          {
            header: "Converted visitors",
            cell: (g) => g.convertedVisitors.toLocaleString(),
            numeric: true,
            csv: (g) => g.convertedVisitors,
          },
          {
            header: "Conversions",
            cell: (g) => g.conversions.toLocaleString(),
            numeric: true,
            csv: (g) => g.conversions,
          },
          {
            header: "Conversion rate",
            cell: (g) => percent(g.conversionRate),
            numeric: true,
            csvHeader: "Conversion rate (fraction)",
            csv: (g) => g.conversionRate,
          },
          {
            header: "Revenue",
            cell: (g) => money(g.revenue),
            numeric: true,
            csv: (g) => g.revenue,
          },
        ]}
      />
    </Card>
  );
}
