/** What the charts take: here, below both a chart and its lazily loaded uPlot half, so neither imports the other back. */

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
