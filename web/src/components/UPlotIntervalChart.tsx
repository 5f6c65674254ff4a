import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { IntervalChartProps } from "./chart-props";
import { themeColor } from "./theme";

const ESTIMATE = "#4f46e5";
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
            size: 90,
            splits: () => rows,
            values: (_u, splits) => splits.map((v) => intervals[v - 1]?.label ?? ""),
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
