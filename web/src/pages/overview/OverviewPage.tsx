import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { api, call } from "../../api/client";
import { Chart, preloadChart } from "../../components/Chart";
import { DataTable } from "../../components/DataTable";
import { FilterBar, FilterValue } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { PeriodPicker } from "../../components/PeriodPicker";
import { StatTile } from "../../components/StatTile";
import { previousPeriod, usePeriod } from "../../components/period";
import { FirstRun, useHasEvents } from "./FirstRun";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { SaveInsight, withFilter } from "../../components/SaveInsight";

preloadChart();

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;
const VISITORS = "#4f46e5";
const CONVERSIONS = "#b45309";

/** An empty project shows how to send its first event, and waits for it live (FirstRun.tsx). */
export default function OverviewPage() {
  const status = useHasEvents();
  if (status.isPending) return <PageSkeleton />;
  if (status.data?.hasEvents === false) return <FirstRun />;
  return <Overview />;
}

/** Overview: the period's headline numbers against the previous period, a daily chart, top channels. */
function Overview() {
  const [period, setPeriod] = usePeriod();
  const { param: filter, conditions } = useFilter();
  const summary = useQuery({
    queryKey: ["analytics", "summary", period, filter],
    queryFn: () => call(api.GET("/api/analytics/summary", { params: { query: { ...period, filter } } })),
  });
  // The previous period is the same number of days just before the one the API resolved.
  const prev = summary.data ? previousPeriod(summary.data.period.from, summary.data.period.to) : null;
  const previous = useQuery({
    queryKey: ["analytics", "summary", { period: "custom", ...prev }, filter],
    queryFn: () =>
      call(api.GET("/api/analytics/summary", { params: { query: { period: "custom", ...prev!, filter } } })),
    enabled: prev !== null,
  });
  const series = useQuery({
    queryKey: ["analytics", "timeseries", period, filter],
    queryFn: () =>
      call(
        api.GET("/api/analytics/timeseries", { params: { query: { ...period, interval: "day", filter } } }),
      ),
  });

  // Stable arrays: the chart is rebuilt only when the data changes.
  const chart = useMemo(() => {
    const points = series.data?.points ?? [];
    return {
      dates: points.map((pt) => pt.date),
      series: [
        { label: "Visitors", values: points.map((pt) => pt.visitors), color: VISITORS },
        { label: "Conversions", values: points.map((pt) => pt.conversions), color: CONVERSIONS },
      ],
    };
  }, [series.data]);

  const header = (
    <>
      <PageHeader title="Overview">
        <SaveInsight kind="summary" settings={withFilter(period, conditions)} suggestedName="Overview" />
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
  return (
    <>
      {header}
      <p className="muted period-note">
        {s.period.from} to {s.period.to} (UTC){p ? `, compared with ${p.period.from} to ${p.period.to}` : ""}
      </p>
      {previous.isError && (
        <ErrorState title="The previous period could not be loaded" error={previous.error} />
      )}
      <div className="tiles">
        <StatTile label="Visitors" value={s.visitors} previous={p?.visitors} />
        <StatTile label="Leads" value={s.leads} previous={p?.leads} />
        <StatTile label="Conversions" value={s.conversions} previous={p?.conversions} />
        <StatTile
          label="Conversion rate"
          value={s.conversionRate}
          previous={p?.conversionRate}
          format={percent}
        />
      </div>
      <Card title="Visitors and conversions per day">
        {series.isPending ? (
          <PageSkeleton label="Loading the chart" />
        ) : series.isError ? (
          <ErrorState error={series.error} retry={() => void series.refetch()} />
        ) : (
          <Chart
            label={`Visitors and conversions per day, ${s.period.from} to ${s.period.to}`}
            dates={chart.dates}
            series={chart.series}
          />
        )}
      </Card>
      <Card title="Top channels">
        {s.topChannels.length === 0 ? (
          <EmptyState title="No visits in this period yet">
            Add the snippet from Settings to your site, or send events to <code>POST /api/events</code>.
          </EmptyState>
        ) : (
          <DataTable
            caption="Top channels"
            rows={s.topChannels}
            rowKey={(c) => c.channel}
            columns={[
              {
                header: "Channel",
                cell: (c) => <FilterValue filterKey="channel" value={c.channel} />,
              },
              { header: "Visitors", cell: (c) => c.visitors.toLocaleString(), numeric: true },
              { header: "Conversions", cell: (c) => c.conversions.toLocaleString(), numeric: true },
              {
                header: "Conversion rate",
                cell: (c) => (c.visitors > 0 ? percent(c.conversions / c.visitors) : "–"),
                numeric: true,
              },
            ]}
          />
        )}
      </Card>
    </>
  );
}
