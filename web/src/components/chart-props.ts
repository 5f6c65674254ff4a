/** What the charts take: here, below both a chart and its lazily loaded uPlot half, so neither imports the other back. */

export interface ChartSeries {
  label: string;
  values: number[];
  /** a CSS colour */
  color: string;
  /** a dashed line (e.g. the previous period's) */
  dashed?: boolean;
  /** what the legend says for the series (default: the sum of its values) */
  total?: string;
  /** a tooltip on the legend's entry (an estimated total's bound) */
  totalNote?: string;
  /** on its own scale, with an axis on the right (a rate beside counts) */
  right?: boolean;
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
  /** Bars instead of lines: each series' bars side by side within its point's slot. */
  bars?: boolean;
}

/** An annotation as the charts draw it (`/api/annotations`). */
export interface Mark {
  id: string;
  date: string;
  endDate: string | null;
  text: string;
}

/** What the uPlot part draws beyond the series: annotations, and a click on a day. */
export interface PlotExtras {
  marks: Mark[];
  onPick?: (isoDay: string) => void;
}

export interface Interval {
  label: string;
  /** The estimate and its interval, as fractions (0.12 = +12%). */
  estimate: number;
  low: number;
  high: number;
}

export interface IntervalChartProps {
  /** What the chart shows, for screen readers and as its caption. */
  label: string;
  intervals: Interval[];
  height?: number;
}
