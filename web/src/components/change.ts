/**
 * How a headline number moved against the previous period, in words a marketer can trust
 * ("+16492% vs previous" when the previous period was nearly empty).
 * - counts and money: a percentage only when the previous period is big enough to be a base (at
 *   least `MIN_BASE` for counts) and the change stays under ×10; otherwise the absolute change
 *   ("+1,950 from 12"), and "new" from nothing;
 * - rates: the difference in percentage points ("+3.1 pts"), never a percentage of a percentage.
 */
export type ChangeKind = "count" | "money" | "rate";

export interface Change {
  /** what the tile shows */
  text: string;
  tone: "up" | "down" | "flat";
  /** what a screen reader says */
  spoken: string;
}

/** Below this many in the previous period, a percentage change says more about noise than growth. */
export const MIN_BASE = 20;
/** From ×10 (+900%) on, a percentage stops meaning anything to a reader. */
const MAX_RATIO = 10;

const sign = (n: number) => (n > 0 ? "+" : n < 0 ? "−" : "±");
const toneOf = (n: number): Change["tone"] => (n > 0 ? "up" : n < 0 ? "down" : "flat");
const said = (tone: Change["tone"]) => (tone === "up" ? "up" : tone === "down" ? "down" : "no change,");

export function changeOf(
  value: number,
  previous: number | undefined,
  kind: ChangeKind,
  format: (n: number) => string,
): Change | null {
  if (previous === undefined) return null;
  const diff = value - previous;
  const tone = toneOf(diff);
  if (kind === "rate") {
    const pts = (Math.abs(diff) * 100).toFixed(1);
    return {
      text: `${sign(diff)}${pts} pts`,
      tone,
      spoken: `${said(tone)} ${pts} percentage points on the previous period`,
    };
  }
  if (previous === 0)
    return value === 0
      ? { text: "no change", tone: "flat", spoken: "no change" }
      : { text: "new", tone: "up", spoken: "none in the previous period" };
  const small = kind === "count" && Math.abs(previous) < MIN_BASE;
  const ratio = previous > 0 ? value / previous : Number.POSITIVE_INFINITY;
  if (small || previous < 0 || ratio >= MAX_RATIO) {
    const text = `${sign(diff)}${format(Math.abs(diff))} from ${format(previous)}`;
    return {
      text,
      tone,
      spoken: `${said(tone)} ${format(Math.abs(diff))}, from ${format(previous)} in the previous period`,
    };
  }
  const pct = (diff / previous) * 100;
  const rounded = Math.abs(pct) < 10 ? Math.abs(pct).toFixed(1) : Math.abs(pct).toFixed(0);
  return {
    text: `${sign(pct)}${rounded}%`,
    tone,
    spoken: `${said(tone)} ${rounded}% on the previous period`,
  };
}
