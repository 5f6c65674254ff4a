import { Suspense, lazy } from "react";
import type { ChartProps } from "./chart-props";

export type { ChartProps, ChartSeries } from "./chart-props";

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
