import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { IntervalChartProps } from "./chart-props";
import { themeColor } from "./theme";

const ESTIMATE = "#4f46e5";
const AXIS_FONT = "12px system-ui, -apple-system, sans-serif";
/** The labels may take at most this share of the width; longer ones end in "…" (the legend has them whole). */
const LABEL_SHARE = 0.45;

/**
 * Sizes the label axis to its longest label (a fixed 90 px clipped "blue-headline" to
 * "lue-headline"), and shortens only what cannot fit in `LABEL_SHARE` of the width.
 */
function labelFitter(labels: string[], width: number) {
  const ctx = document.createElement("canvas").getContext("2d");
  const measure = (t: string) => {
    if (!ctx) return t.length * 7;
    ctx.font = AXIS_FONT;
    return ctx.measureText(t).width;
  };
  const room = Math.min(Math.max(0, ...labels.map(measure)), width * LABEL_SHARE);
  const fit = (t: string) => {
    if (measure(t) <= room) return t;
    let s = t;
    while (s.length > 1 && measure(`${s}…`) > room) s = s.slice(0, -1);
    return `${s}…`;
  };
  // the ticks and the gap beside the text
  return { size: Math.ceil(room) + 24, fit };
}
const RANGE = "rgba(79, 70, 229, 0.25)";

/**
 * The uPlot part of IntervalChart (its own chunk): items along the vertical axis, the value along
 * the horizontal one; each interval is a thick segment with its estimate as a point, and a line
 * marks zero.
 */
export default function UPlotIntervalChart({ intervals, height = 160, label }: IntervalChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = themeColor(el, "--muted", "#4b5563");
    const rows = intervals.map((_, i) => i + 1);
    const lo = Math.min(0, ...intervals.map((i) => i.low));
    const hi = Math.max(0, ...intervals.map((i) => i.high));
    const pad = (hi - lo) * 0.1 || 0.05;
    const labels = labelFitter(
      intervals.map((i) => i.label),
      Math.max(el.clientWidth, 200),
    );
    const draw = (u: uPlot) => {
      const ctx = u.ctx;
      ctx.save();
      const zero = u.valToPos(0, "x", true);
      ctx.strokeStyle = "#9ca3af";
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(zero, u.bbox.top);
      ctx.lineTo(zero, u.bbox.top + u.bbox.height);
      ctx.stroke();
      intervals.forEach((iv, i) => {
        const y = u.valToPos(i + 1, "y", true);
        ctx.strokeStyle = RANGE;
        ctx.lineWidth = 10;
        ctx.beginPath();
        ctx.moveTo(u.valToPos(iv.low, "x", true), y);
        ctx.lineTo(u.valToPos(iv.high, "x", true), y);
        ctx.stroke();
        ctx.fillStyle = ESTIMATE;
        ctx.beginPath();
        ctx.arc(u.valToPos(iv.estimate, "x", true), y, 5 * devicePixelRatio, 0, 2 * Math.PI);
        ctx.fill();
      });
      ctx.restore();
    };
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height,
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x: { time: false, range: [lo - pad, hi + pad] },
          y: { range: [0.5, intervals.length + 0.5] },
        },
        axes: [
          { stroke: axis, values: (_u, splits) => splits.map((v) => `${Math.round(v * 100)}%`) },
          {
            stroke: axis,
            font: AXIS_FONT,
            size: labels.size,
            splits: () => rows,
            values: (_u, splits) => splits.map((v) => labels.fit(intervals[v - 1]?.label ?? "")),
          },
        ],
        series: [{}, { show: false }],
        hooks: { draw: [draw] },
      },
      [
        [lo - pad, hi + pad],
        [null, null],
      ],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [intervals, height]);
  return <div ref={box} className="chart-canvas" role="img" aria-label={label} />;
}
