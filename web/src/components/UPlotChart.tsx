import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { ChartProps, PlotExtras } from "./chart-props";
import { themeColor } from "./theme";

const toSeconds = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;
const DAY_S = 86_400;
const MARK = "#b45309";
const BAND = "rgba(180, 83, 9, 0.10)";
/** A daily chart's ticks: whole days only (uPlot's default put "12am 8am 4pm" between the days). */
const DAY_INCRS = [1, 2, 7, 14, 28, 91].map((d) => d * DAY_S);
const dayTick = (s: number) =>
  new Date(s * 1000).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const axisX = (daily: boolean, stroke: string): uPlot.Axis =>
  daily ? { stroke, incrs: DAY_INCRS, values: (_u, splits) => splits.map(dayTick) } : { stroke };

/** Draws each annotation: a band over its days, or a dashed line on its day, numbered at the top. */
function drawMarks(u: uPlot, marks: PlotExtras["marks"]) {
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
  marks.forEach((m, i) => {
    const x0 = u.valToPos(toSeconds(m.date), "x", true);
    if (m.endDate) {
      const x1 = u.valToPos(toSeconds(m.endDate) + DAY_S - 1, "x", true);
      ctx.fillStyle = BAND;
      ctx.fillRect(x0, top, Math.max(x1 - x0, 2), height);
    }
    ctx.strokeStyle = MARK;
    ctx.lineWidth = devicePixelRatio;
    ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
    ctx.beginPath();
    ctx.moveTo(x0, top);
    ctx.lineTo(x0, top + height);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = MARK;
    ctx.fillText(String(i + 1), x0 + 3 * devicePixelRatio, top + 12 * devicePixelRatio);
  });
  ctx.restore();
}

/**
 * Series `i` of `n` as bars: each gets an equal share of 80% of its point's slot, side by side
 * (uPlot's `disp`, in the x scale's seconds), so no bar hides another.
 */
function barsOf(i: number, n: number): uPlot.Series.PathBuilder {
  return (u, seriesIdx, idx0, idx1) => {
    const xs = u.data[0] as number[];
    const slot = xs.length > 1 ? xs[1]! - xs[0]! : DAY_S;
    const width = (slot * 0.8) / n;
    return uPlot.paths.bars!({
      disp: {
        x0: { unit: 1, values: () => xs.map((x) => x - slot * 0.4 + i * width) },
        size: { unit: 1, values: () => xs.map(() => width) },
      },
    })(u, seriesIdx, idx0, idx1);
  };
}

/** The uPlot part of Chart (its own chunk). The canvas follows its box's width. */
export default function UPlotChart({
  dates,
  times,
  series,
  height = 260,
  label,
  marks,
  onPick,
  bars,
}: ChartProps & PlotExtras) {
  const box = useRef<HTMLDivElement>(null);
  // The latest callback, without rebuilding the plot when the page re-renders.
  const pick = useRef(onPick);
  pick.current = onPick;
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = themeColor(el, "--muted", "#4b5563");
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        // The days are UTC days (the pages say so): ticks at UTC midnight, whatever the browser's
        // zone. Moments (`times`) stay in the reader's zone.
        ...(times ? {} : { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC") }),
        axes: [
          axisX(!times, axis),
          { stroke: axis, size: 56 },
          ...(series.some((s) => s.right)
            ? [{ stroke: axis, size: 56, scale: "right", side: 1, grid: { show: false } }]
            : []),
        ],
        series: [
          {},
          ...series.map((s, i) =>
            bars
              ? {
                  label: s.label,
                  ...(s.right ? { scale: "right" } : {}),
                  stroke: s.color,
                  fill: s.dashed ? undefined : s.color,
                  width: 1,
                  paths: barsOf(i, series.length),
                  points: { show: false },
                }
              : {
                  label: s.label,
                  ...(s.right ? { scale: "right" } : {}),
                  stroke: s.color,
                  width: 2,
                  dash: s.dashed ? [6, 4] : undefined,
                  points: { show: !s.dashed && (times ?? dates).length < 40 },
                },
          ),
        ],
        hooks: { draw: [(u: uPlot) => drawMarks(u, marks)] },
      },
      [times ? times.map((t) => Date.parse(t) / 1000) : dates.map(toSeconds), ...series.map((s) => s.values)],
      el,
    );
    // A click on the plot picks the nearest day's point (days are drawn at 00:00 UTC, so the
    // nearest, not the one the moment falls in): the annotation form opens on it.
    const click = (e: MouseEvent) => {
      if (!pick.current) return;
      // From the plot area's edge: offsetX would be from whichever cursor point was clicked.
      const x = plot.posToVal(e.clientX - plot.over.getBoundingClientRect().left, "x");
      if (Number.isFinite(x))
        pick.current(new Date(Math.round(x / DAY_S) * DAY_S * 1000).toISOString().slice(0, 10));
    };
    plot.over.addEventListener("click", click);
    if (pick.current) plot.over.style.cursor = "copy";
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      plot.over.removeEventListener("click", click);
      resize.disconnect();
      plot.destroy();
    };
  }, [dates, times, series, height, marks, bars]);
  return <div ref={box} className="chart-canvas" role="img" aria-label={label} />;
}
