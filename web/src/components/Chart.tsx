import { Suspense, lazy } from "react";

export interface ChartSeries {
  label: string;
  values: number[];
  /** a CSS colour */
  color: string;
}

export interface ChartProps {
  /** What the chart shows, for screen readers and as its caption. */
  label: string;
  /** ISO dates (YYYY-MM-DD), one per point */
  dates: string[];
  /** Instead of `dates`: exact moments (ISO 8601 date-times), one per point. */
  times?: string[];
  /** How the legend sums a series up (default: its total). */
  summary?: (values: number[]) => string;
  series: ChartSeries[];
  height?: number;
}

// uPlot is not in the app's first download. A page with a chart calls preloadChart() when its own
// chunk loads, so uPlot arrives while the page's data is fetched, not after it.
const loadUPlot = () => import("./UPlotChart");
const UPlotChart = lazy(loadUPlot);
export const preloadChart = (): void => void loadUPlot();

/** A line chart over dates (uPlot), with its own legend. */
export function Chart(props: ChartProps) {
  const height = props.height ?? 260;
  return (
    <figure className="chart" aria-label={props.label}>
      <Suspense fallback={<div className="chart-placeholder" style={{ height }} />}>
        <UPlotChart {...props} height={height} />
      </Suspense>
      <figcaption className="legend">
        {props.series.map((s) => (
          <span key={s.label} className="legend-item">
            <span className="swatch" style={{ background: s.color }} aria-hidden="true" />
            {s.label}:{" "}
            {props.summary
              ? props.summary(s.values)
              : `${s.values.reduce((a, b) => a + b, 0).toLocaleString()} in total`}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
