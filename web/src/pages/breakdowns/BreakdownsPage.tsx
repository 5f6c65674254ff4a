import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Count } from "../../components/estimate";
import { FilterBar, FilterValue } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { DIMENSIONS, type Dimension } from "../../components/dimensions";
import { SelectField } from "../../components/Field";
import { PeriodPicker } from "../../components/PeriodPicker";
import { useGoal } from "../../components/goal";
import { GoalPicker } from "../../components/GoalPicker";
import { usePeriod } from "../../components/period";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { SaveInsight, withFilter } from "../../components/SaveInsight";
import { BreakdownBars } from "./BreakdownBars";
import { analyticsKeys } from "../../components/analyticsKeys";
import { useRevenueMoney } from "../../components/revenue-money";

const LIMIT = 50;

/** Visitors, conversions and revenue per value of one dimension, for the chosen period. */
export default function BreakdownsPage() {
  const [params, setParams] = useSearchParams();
  const [period, setPeriod] = usePeriod();
  const [goal, setGoal] = useGoal();
  const { param: filter, conditions } = useFilter();
  const money = useRevenueMoney(period, filter, goal);
  const by = (DIMENSIONS.find((d) => d.value === params.get("by"))?.value ?? "channel") as Dimension;
  const label = DIMENSIONS.find((d) => d.value === by)!.label;
  const setBy = (value: string) =>
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      out.set("by", value);
      return out;
    });
  const breakdown = useQuery({
    queryKey: analyticsKeys.breakdown(by, period, filter, goal),
    queryFn: () =>
      call(
        api.GET("/api/analytics/breakdown", {
          params: { query: { ...period, by, limit: LIMIT, filter, goal } },
        }),
      ),
  });

  return (
    <>
      <PageHeader title="Breakdowns">
        <SaveInsight
          kind="breakdown"
          settings={withFilter({ ...period, by, limit: LIMIT, ...(goal ? { goal } : {}) }, conditions)}
          suggestedName={`Breakdown by ${label.toLowerCase()}`}
        />
        <GoalPicker value={goal} onChange={setGoal} />
        <PeriodPicker value={period} onChange={setPeriod} />
      </PageHeader>
      <FilterBar />
      <div className="form-row">
        <SelectField
          label="Group by"
          value={by}
          onChange={(e) => setBy(e.target.value)}
          options={[...DIMENSIONS]}
        />
      </div>
      <Card title={`Visitors and conversions by ${label.toLowerCase()}`}>
        {breakdown.isPending ? (
          <PageSkeleton label="Loading the breakdown" />
        ) : breakdown.isError ? (
          <ErrorState error={breakdown.error} retry={() => void breakdown.refetch()} />
        ) : breakdown.data.rows.length === 0 ? (
          <EmptyState title="No visits in this period yet">
            Add the snippet from Settings to your site, or send events to <code>POST /api/events</code>.
          </EmptyState>
        ) : (
          <>
            <p className="muted period-note">
              {breakdown.data.period.from} to {breakdown.data.period.to} (UTC). Visitors count under their
              sessions' values; conversions under the values of the person's first visit. Bots are left out.
            </p>
            <BreakdownBars rows={breakdown.data.rows} label={label} />
            <DataTable
              caption={`Breakdown by ${label.toLowerCase()}`}
              rows={breakdown.data.rows}
              rowKey={(r) => r.key}
              columns={[
                {
                  header: label,
                  cell: (r) => <FilterValue filterKey={by === "event_type" ? "event" : by} value={r.key} />,
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
                  cell: (r) => r.conversions.toLocaleString(),
                  csv: (r) => r.conversions,
                },
                // The rate on one basis: visitors whose first touch had this value, and who of them converted.
                {
                  header: by === "event_type" ? "Of them converted" : "First came with it",
                  numeric: true,
                  cell: (r) =>
                    by === "event_type"
                      ? r.convertedVisitors.toLocaleString()
                      : `${r.firstTouchVisitors.toLocaleString()} (${r.convertedVisitors.toLocaleString()} converted)`,
                  csvHeader: by === "event_type" ? "Converted visitors" : "Visitors who first came with it",
                  csv: (r) => (by === "event_type" ? r.convertedVisitors : r.firstTouchVisitors),
                },
                {
                  header: "Conversion rate",
                  numeric: true,
                  cell: (r) => (r.firstTouchVisitors > 0 ? `${(r.conversionRate * 100).toFixed(1)}%` : "–"),
                  csvHeader: "Conversion rate (fraction)",
                  csv: (r) => (r.firstTouchVisitors > 0 ? r.conversionRate : null),
                },
                { header: "Revenue", numeric: true, cell: (r) => money(r.revenue), csv: (r) => r.revenue },
              ]}
            />
          </>
        )}
      </Card>
    </>
  );
}
