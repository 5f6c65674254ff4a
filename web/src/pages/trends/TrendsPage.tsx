import { ApiError } from "../../api/client";
import { preloadChart } from "../../components/Chart";
import { FilterBar } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { useGoal } from "../../components/goal";
import { GoalPicker } from "../../components/GoalPicker";
import { PeriodPicker } from "../../components/PeriodPicker";
import { usePeriod } from "../../components/period";
import { SaveInsight } from "../../components/SaveInsight";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { linesOf } from "./lines";
import { useTrendParams, useTrends } from "./model";
import { TrendBuilder } from "./TrendBuilder";
import { TrendsView } from "./TrendsView";
import { VIEWS, type View, trendsBody } from "./url";

preloadChart();

const VIEW_LABELS: Record<View, string> = { line: "Line", bar: "Bar", number: "Number", table: "Table" };

/** A 400 about the formula belongs beside the formula's field, not in place of the chart. */
const isFormulaError = (e: unknown): e is ApiError =>
  e instanceof ApiError && e.status === 400 && /\.formulas\[\d+\]/.test(e.message);

/** Trends: series of events over time, formulas over them, the previous period (PostHog's trends). */
export default function TrendsPage() {
  const [period, setPeriod] = usePeriod();
  const [goal, setGoal] = useGoal();
  const { conditions: filter } = useFilter();
  const { shown, view, show, setView } = useTrendParams();
  const body = shown ? trendsBody(shown, period, filter, goal) : null;
  const trends = useTrends(body as Parameters<typeof useTrends>[0]);
  const formulaError = isFormulaError(trends.error) ? trends.error.message : null;
  const suggestedName = shown ? shown.series.map((s) => s.name.trim() || s.event).join(", ") : "Trends";

  return (
    <>
      <PageHeader title="Trends">
        <SaveInsight kind="trends" settings={body ?? undefined} suggestedName={suggestedName} />
        <GoalPicker value={goal} onChange={setGoal} />
        <PeriodPicker value={period} onChange={setPeriod} />
      </PageHeader>
      <FilterBar />
      <Card title="Series">
        <TrendBuilder shown={shown} onShow={show} formulaError={formulaError} />
      </Card>
      <Card
        title="Trend"
        actions={
          <fieldset className="segmented">
            <legend className="visually-hidden">View</legend>
            {VIEWS.map((v) => (
              <label key={v} className={view === v ? "on" : undefined}>
                <input
                  type="radio"
                  name="trends-view"
                  value={v}
                  checked={view === v}
                  onChange={() => setView(v)}
                />
                {VIEW_LABELS[v]}
              </label>
            ))}
          </fieldset>
        }
      >
        {shown === null ? (
          <EmptyState title="No trend yet">Choose the series, then show the trend.</EmptyState>
        ) : trends.isPending ? (
          <PageSkeleton label="Counting the trend" />
        ) : trends.isError ? (
          formulaError ? (
            <EmptyState title="The formula needs fixing">See the message under the formula.</EmptyState>
          ) : (
            <ErrorState error={trends.error} retry={() => void trends.refetch()} />
          )
        ) : (
          <TrendsView
            view={view}
            interval={trends.data.interval}
            buckets={(trends.data.series[0] ?? trends.data.formulas[0])?.data.map((p) => p.bucket) ?? []}
            lines={linesOf(trends.data, shown.series, shown.formula, shown.breakdown)}
          />
        )}
      </Card>
    </>
  );
}
