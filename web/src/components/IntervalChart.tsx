import { Suspense, lazy } from "react";
import type { IntervalChartProps } from "./chart-props";

export type { Interval, IntervalChartProps } from "./chart-props";

const loadUPlot = () => import("./UPlotIntervalChart");
const UPlotIntervalChart = lazy(loadUPlot);
export const preloadIntervalChart = (): void => void loadUPlot();

/** Estimates with their intervals, one row per item (uPlot), e.g. each variant's uplift. */
export function IntervalChart(props: IntervalChartProps) {
  const height = props.height ?? Math.max(140, 60 + props.intervals.length * 44);
  return (
    <figure className="chart" aria-label={props.label}>
      <Suspense fallback={<div className="chart-placeholder" style={{ height }} />}>
        <UPlotIntervalChart {...props} height={height} />
      </Suspense>
      <figcaption className="legend">
        {props.intervals.map((i) => (
          <span key={i.label} className="legend-item">
            {i.label}: {pct(i.estimate)} ({pct(i.low)} to {pct(i.high)})
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

export const pct = (n: number) => `${n > 0 ? "+" : n < 0 ? "−" : "±"}${Math.abs(n * 100).toFixed(1)}%`;
