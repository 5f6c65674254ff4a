import { Suspense, lazy, useState } from "react";
import { AnnotationForm } from "./AnnotationForm";
import { shortDay, useAnnotations } from "./annotations";
import type { ChartProps, ChartSeries } from "./chart-props";

export type { ChartProps, ChartSeries } from "./chart-props";

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
          <span key={s.label} className="legend-item" title={s.totalNote}>
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
