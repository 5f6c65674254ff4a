import { valueLabel } from "../../components/channels.js";
import { moneyFormat } from "../../components/money.js";
import { type Interval, LETTERS, type SeriesDraft } from "./url.js";

/**
 * The trends answer as the views draw it: one line per series (and breakdown value) and formula,
 * each with its label and how its numbers read. Pure: tested in test/web/trends.test.ts.
 */

type Point = { bucket: string; value: number | null };
export interface ApiLine {
  label: string;
  letter: string;
  breakdownValue?: string;
  data: Point[];
  total: number | null;
  compare?: { data: Point[]; total: number | null };
}

export interface Line {
  key: string;
  /** "A. pageview", "F1. B / A * 100", "A. pageview · Organic search" */
  label: string;
  data: (number | null)[];
  total: number | null;
  compare?: { data: (number | null)[]; total: number | null };
  format: (n: number) => string;
  /** a formula's line (drawn on its own axis beside series) */
  formula: boolean;
}

const count = (n: number) => n.toLocaleString();
const decimal = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 2 });
/** Property names that hold money by the usual conventions (revenue, price, amount …). */
const MONEY = /revenue|price|amount|value|total|cost|spend/i;
/** A formula scaled to a percentage ("B / A * 100", "100 * B / A"). */
const PERCENT = /(^\s*100\s*\*)|(\*\s*100\s*$)/;

/** How one series' numbers read: counts whole, money as the dashboard writes it (no invented symbol). */
export function seriesFormat(s: Pick<SeriesDraft, "measure" | "property">): (n: number) => string {
  if (s.measure === "total" || s.measure === "unique_people" || ["dau", "wau", "mau"].includes(s.measure))
    return count;
  if (MONEY.test(s.property)) return moneyFormat(null, { cents: true });
  return decimal;
}

/** How a formula's numbers read: "33.3%" when it multiplies by 100, else up to two decimals. */
export const formulaFormat = (expression: string): ((n: number) => string) =>
  PERCENT.test(expression) ? (n) => `${n.toFixed(1)}%` : decimal;

/** A bucket's start as a reader names it at this interval (UTC, as the API's buckets are). */
export function bucketLabel(bucket: string, interval: Interval): string {
  const day = bucket.slice(0, 10);
  if (interval === "hour") return `${day} ${bucket.slice(11, 13)}:00`;
  if (interval === "week") return `Week of ${day}`;
  if (interval === "month") return day.slice(0, 7);
  return day;
}

const values = (points: Point[]) => points.map((p) => p.value);

/** Every line of the answer, series first (per breakdown value), then formulas. */
export function linesOf(
  answer: { series: ApiLine[]; formulas: ApiLine[] },
  series: Pick<SeriesDraft, "measure" | "property">[],
  formula: string,
  breakdown: string,
): Line[] {
  const shape = (l: ApiLine, format: (n: number) => string, isFormula = false): Line => {
    const by = l.breakdownValue === undefined ? "" : ` · ${valueLabel(breakdown, l.breakdownValue)}`;
    return {
      key: `${l.letter}\u0000${l.breakdownValue ?? ""}`,
      label: `${l.letter}. ${l.label}${by}`,
      data: values(l.data),
      total: l.total,
      ...(l.compare ? { compare: { data: values(l.compare.data), total: l.compare.total } } : {}),
      format,
      formula: isFormula,
    };
  };
  return [
    ...answer.series.map((l) => {
      const s = series[LETTERS.indexOf(l.letter)];
      return shape(l, s ? seriesFormat(s) : decimal);
    }),
    // Without the request (a dashboard tile), an unnamed formula's label is its expression.
    ...answer.formulas.map((l) => shape(l, formulaFormat(formula || l.label), true)),
  ];
}

/** "6", "33.3%", or a dash for a value the API left null (no data, or a division by zero). */
export const show = (line: Line, n: number | null | undefined) =>
  n === null || n === undefined ? "–" : line.format(n);
