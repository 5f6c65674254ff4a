import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { api, call } from "../../api/client";
import { Chart, type ChartSeries } from "../../components/Chart";
import { countText, estimateNote } from "../../components/estimate";
import type { PeriodQuery } from "../../components/period";
import { ErrorState, PageSkeleton } from "../../components/states";
import { analyticsKeys } from "../../components/analyticsKeys";

const VISITORS = "#4f46e5";
const CONVERSIONS = "#b45309";
const VISITORS_BEFORE = "#6b7280";
const CONVERSIONS_BEFORE = "#92400e";

type Series = Awaited<ReturnType<typeof fetchSeries>>;
const fetchSeries = (query: Record<string, string | undefined>) =>
  call(api.GET("/api/analytics/timeseries", { params: { query: { ...query, interval: "day" } } }));

/**
 * Visitors and conversions per day, with the previous period of the same length as dashed lines
 * (its day k drawn over this period's day k). The legend gives the period's totals from the API —
 * distinct visitors over the period, not a sum of days.
 */
export function TrendChart({
  period,
  filter,
  goal,
  prev,
}: {
  period: PeriodQuery;
  filter: string | undefined;
  goal?: string;
  prev: { from: string; to: string } | null;
}) {
  const series = useQuery({
    queryKey: analyticsKeys.timeseries(period, filter, goal),
    queryFn: () => fetchSeries({ ...period, filter, goal }),
  });
  const before = useQuery({
    queryKey: analyticsKeys.timeseries({ period: "custom", ...prev }, filter, goal),
    queryFn: () => fetchSeries({ period: "custom", ...prev!, filter, goal }),
    enabled: prev !== null,
  });
  // Stable arrays: the chart is rebuilt only when the data changes.
  const chart = useMemo(() => build(series.data, before.data), [series.data, before.data]);
  if (series.isPending) return <PageSkeleton label="Loading the chart" />;
  if (series.isError) return <ErrorState error={series.error} retry={() => void series.refetch()} />;
  const { from, to } = series.data.period;
  return (
    <Chart
      label={`Visitors and conversions per day, ${from} to ${to}${before.data ? ", with the previous period" : ""}`}
      dates={chart.dates}
      series={chart.series}
    />
  );
}

function build(now: Series | undefined, before: Series | undefined) {
  const points = now?.points ?? [];
  const t = now?.totals;
  const series: ChartSeries[] = [
    {
      label: "Visitors",
      values: points.map((p) => p.visitors),
      color: VISITORS,
      total: t ? `${countText(t.visitors, t.visitorsEstimate)} in the period` : undefined,
      totalNote: t?.visitorsEstimate && estimateNote(t.visitorsEstimate),
    },
    {
      label: "Conversions",
      values: points.map((p) => p.conversions),
      color: CONVERSIONS,
      total: t ? `${t.conversions.toLocaleString()} in the period` : undefined,
    },
  ];
  // The previous period has as many days (previousPeriod); day k over day k.
  if (before && before.points.length === points.length)
    series.push(
      {
        label: "Visitors, previous period",
        values: before.points.map((p) => p.visitors),
        color: VISITORS_BEFORE,
        dashed: true,
        total: `${countText(before.totals.visitors, before.totals.visitorsEstimate)} (${before.period.from} to ${before.period.to})`,
        totalNote: before.totals.visitorsEstimate && estimateNote(before.totals.visitorsEstimate),
      },
      {
        label: "Conversions, previous period",
        values: before.points.map((p) => p.conversions),
        color: CONVERSIONS_BEFORE,
        dashed: true,
        total: `${before.totals.conversions.toLocaleString()}`,
      },
    );
  return { dates: points.map((p) => p.date), series };
}
