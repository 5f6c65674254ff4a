import { Suspense, lazy, useState } from "react";
import { AnnotationForm } from "./AnnotationForm";
import { type Mark, shortDay, useAnnotations } from "./annotations";

export interface ChartSeries {
  label: string;
  values: number[];
  /** a CSS colour */
  color: string;
  /** a dashed line (e.g. the previous period's) */
  dashed?: boolean;
  /** what the legend says for the series (default: the sum of its values) */
  total?: string;
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
  /** The project's annotations on the chart's days, and adding one with a click (default on). */
  annotate?: boolean;
}

/** What the uPlot part draws beyond the series: annotations, and a click on a day. */
export interface PlotExtras {
  marks: Mark[];
  onPick?: (isoDay: string) => void;
}

// uPlot is not in the app's first download. A page with a chart calls preloadChart() when its own
// chunk loads, so uPlot arrives while the page's data is fetched, not after it.
const loadUPlot = () => import("./UPlotChart");
const UPlotChart = lazy(loadUPlot);
export const preloadChart = (): void => void loadUPlot();

const dayOf = (x: string) => x.slice(0, 10);

/** A line chart over dates (uPlot), with its own legend and the project's annotations. */
export function Chart(props: ChartProps) {
  const height = props.height ?? 260;
  const xs = props.times ?? props.dates;
  const from = xs.length > 0 ? dayOf(xs[0]!) : undefined;
  const to = xs.length > 0 ? dayOf(xs[xs.length - 1]!) : undefined;
  const annotate = props.annotate ?? true;
  const { marks } = useAnnotations(from, to, annotate);
  const [draft, setDraft] = useState<string | null>(null);
  const legend = (s: ChartSeries) =>
    s.total ??
    (props.summary
      ? props.summary(s.values)
      : `${s.values.reduce((a, b) => a + b, 0).toLocaleString()} in total`);
  return (
    <figure className="chart" aria-label={props.label}>
      <Suspense fallback={<div className="chart-placeholder" style={{ height }} />}>
        <UPlotChart {...props} height={height} marks={marks} onPick={annotate ? setDraft : undefined} />
      </Suspense>
      <figcaption className="legend">
        {props.series.map((s) => (
          <span key={s.label} className="legend-item">
            <span
              className={s.dashed ? "swatch dashed" : "swatch"}
              style={{ background: s.dashed ? undefined : s.color, borderColor: s.color }}
              aria-hidden="true"
            />
            {s.label}: {legend(s)}
          </span>
        ))}
        {annotate && to && draft === null && (
          <button type="button" className="link-button" onClick={() => setDraft(to)}>
            Add annotation
          </button>
        )}
      </figcaption>
      {marks.length > 0 && (
        <ol className="annotation-list" aria-label="Annotations">
          {marks.map((m, i) => (
            <li key={m.id}>
              <span className="annotation-number" aria-hidden="true">
                {i + 1}
              </span>
              <span>
                {shortDay(m.date)}
                {m.endDate ? `–${shortDay(m.endDate)}` : ""}: {m.text}
              </span>
            </li>
          ))}
        </ol>
      )}
      {draft !== null && <AnnotationForm date={draft} onDone={() => setDraft(null)} />}
    </figure>
  );
}
