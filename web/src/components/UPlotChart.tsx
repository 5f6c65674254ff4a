import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { ChartProps } from "./chart-props";
import { themeColor } from "./theme";

const toSeconds = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;

/** The uPlot part of Chart (its own chunk). The canvas follows its box's width. */
export default function UPlotChart({ dates, times, series, height = 260, label }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
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
        axes: [{ stroke: axis }, { stroke: axis, size: 56 }],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            points: { show: (times ?? dates).length < 40 },
          })),
        ],
      },
      [times ? times.map((t) => Date.parse(t) / 1000) : dates.map(toSeconds), ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [dates, times, series, height]);
  return <div ref={box} className="chart-canvas" role="img" aria-label={label} />;
}
