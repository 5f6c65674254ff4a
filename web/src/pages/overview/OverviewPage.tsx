import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import { preloadChart } from "../../components/Chart";
import { FilterBar } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { currencyNote, moneyFormat } from "../../components/money";
import { PeriodPicker } from "../../components/PeriodPicker";
import { StatTile } from "../../components/StatTile";
import { countText } from "../../components/estimate";
import { previousPeriod, usePeriod } from "../../components/period";
import { Card, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { SaveInsight, withFilter } from "../../components/SaveInsight";
import { CONVERSION_MODEL, useGoal } from "../../components/goal";
import { GoalPicker } from "../../components/GoalPicker";
import { FirstRun, useHasEvents } from "./FirstRun";
import { GoalsTable } from "./GoalsTable";
import { TopChannels } from "./TopChannels";
import { TrendChart } from "./TrendChart";
import { analyticsKeys } from "../../components/analyticsKeys";

preloadChart();

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

/** An empty project shows how to send its first event, and waits for it live (FirstRun.tsx). */
export default function OverviewPage() {
  const status = useHasEvents();
  if (status.isPending) return <PageSkeleton />;
  if (status.data?.hasEvents === false) return <FirstRun />;
  return <Overview />;
}

/**
 * Overview: the period's headline numbers against the previous period, a daily chart with the
 * previous period and the project's annotations, top channels.
 */
function Overview() {
  const [period, setPeriod] = usePeriod();
  const [goal, setGoal] = useGoal();
  const { param: filter, conditions } = useFilter();
  const summary = useQuery({
    queryKey: analyticsKeys.summary(period, filter, goal),
    queryFn: () =>
      call(api.GET("/api/analytics/summary", { params: { query: { ...period, filter, goal } } })),
  });
  // The previous period is the same number of days just before the one the API resolved.
  const prev = summary.data ? previousPeriod(summary.data.period.from, summary.data.period.to) : null;
  const previous = useQuery({
    queryKey: analyticsKeys.summary({ period: "custom", ...prev }, filter, goal),
    queryFn: () =>
      call(
        api.GET("/api/analytics/summary", {
          params: { query: { period: "custom", ...prev!, filter, goal } },
        }),
      ),
    enabled: prev !== null,
  });

  const header = (
    <>
      <PageHeader title="Overview">
        <SaveInsight
          kind="summary"
          settings={withFilter(goal ? { ...period, goal } : period, conditions)}
          suggestedName="Overview"
        />
        <GoalPicker value={goal} onChange={setGoal} />
        <PeriodPicker value={period} onChange={setPeriod} />
      </PageHeader>
      <FilterBar />
    </>
  );
  if (summary.isPending)
    return (
      <>
        {header}
        <PageSkeleton />
      </>
    );
  if (summary.isError)
    return (
      <>
        {header}
        <ErrorState error={summary.error} retry={() => void summary.refetch()} />
      </>
    );

  const s = summary.data;
  const p = previous.data;
  const money = moneyFormat(s.revenueCurrency);
  return (
    <>
      {header}
      <p className="muted period-note">
        {s.period.from} to {s.period.to} (UTC){p ? `, compared with ${p.period.from} to ${p.period.to}` : ""}.{" "}
        Conversions: {s.goal ? <strong>{s.goal.name}</strong> : "any conversion goal"}. {CONVERSION_MODEL}
      </p>
      {previous.isError && (
        <ErrorState title="The previous period could not be loaded" error={previous.error} />
      )}
      <div className="tiles">
        <StatTile label="Visitors" value={s.visitors} previous={p?.visitors} estimate={s.visitorsEstimate} />
        <StatTile label="Leads" value={s.leads} previous={p?.leads} />
        <StatTile label="Conversions" value={s.conversions} previous={p?.conversions} />
        <StatTile
          label="Conversion rate"
          value={s.conversionRate}
          previous={p?.conversionRate}
          format={percent}
          kind="rate"
          detail={`${s.convertedVisitors.toLocaleString()} of ${countText(s.visitors, s.visitorsEstimate)} visitors converted`}
        />
        <StatTile
          label={s.revenueCurrency ? `Revenue (${s.revenueCurrency})` : "Revenue"}
          value={s.revenue}
          previous={p && p.revenueCurrency === s.revenueCurrency ? p.revenue : undefined}
          format={money}
          kind="money"
          detail={currencyNote(s.revenueCurrencies)}
        />
      </div>
      <Card title="Visitors and conversions per day">
        <TrendChart period={period} filter={filter} goal={goal} prev={prev} />
      </Card>
      <TopChannels channels={s.topChannels} money={moneyFormat(s.revenueCurrency, { cents: true })} />
      <GoalsTable period={period} filter={filter} />
    </>
  );
}
