import type { AlertConditionT } from "./schema.js";

/**
 * What an alert checks and when it fires, without storage: the latest complete bucket of its
 * interval, whether a value meets its condition, and whether a check is a new crossing.
 */

const DAY_MS = 86_400_000;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const iso = (day: number) => new Date(day * DAY_MS).toISOString();

export interface AlertWindow {
  /** the trends period (ISO dates, inclusive): the previous bucket and the latest complete one */
  from: string;
  to: string;
  /** the latest complete bucket's start (ISO), as trends names its buckets */
  bucket: string;
  previousBucket: string;
}

/**
 * The latest bucket that has ended by `now` (UTC) and the one before. A bucket still running would
 * look like a drop every morning, so only complete ones are checked: a day alert checks yesterday,
 * a week alert last week (weeks start on Monday, as trends' do).
 */
export function windowOf(interval: "day" | "week", now: number): AlertWindow {
  const today = Math.floor(now / DAY_MS);
  if (interval === "day")
    return {
      from: isoDay(today - 2),
      to: isoDay(today - 1),
      bucket: iso(today - 1),
      previousBucket: iso(today - 2),
    };
  // Epoch day 0 was a Thursday: shifting by 3 makes weeks of 7 start on Mondays.
  const monday = Math.floor((today + 3) / 7) * 7 - 3;
  return {
    from: isoDay(monday - 14),
    to: isoDay(monday - 1),
    bucket: iso(monday - 7),
    previousBucket: iso(monday - 14),
  };
}

/** The bucket's change from the one before, in percent of the one before; null when there is none. */
export function changePercent(value: number | null, previous: number | null): number | null {
  if (value === null || previous === null || previous === 0) return null;
  return ((value - previous) / Math.abs(previous)) * 100;
}

/** Whether the bucket meets the condition. No value (nothing to average) never does. */
export function meets(c: AlertConditionT, value: number | null, previous: number | null): boolean {
  if (value === null) return false;
  if (c.kind !== "change") return c.kind === "above" ? value > c.value : value < c.value;
  const pct = changePercent(value, previous);
  if (pct === null) return false;
  if (c.direction === "up") return pct >= c.percent;
  if (c.direction === "down") return pct <= -c.percent;
  return Math.abs(pct) >= c.percent;
}

export function conditionText(c: AlertConditionT): string {
  if (c.kind !== "change") return `${c.kind} ${c.value}`;
  const dir = c.direction === "either" ? "up or down" : c.direction;
  return `${dir} by ${c.percent}% or more from the bucket before`;
}

/**
 * What a check does with the bucket it evaluated, given the state the last check left:
 * `fire` (a crossing: the bucket meets the condition and the last one checked did not, or none
 * was), `record` (a later bucket, no new crossing: keep its state), `same` (this bucket, or an
 * older one, was already checked: change nothing). So an alert fires when it crosses, not every
 * check while it stays crossed.
 */
export function decide(
  last: { bucket: string; crossed: boolean } | null,
  bucket: string,
  crossed: boolean,
): "fire" | "record" | "same" {
  if (last && bucket <= last.bucket) return "same";
  if (crossed && !last?.crossed) return "fire";
  return "record";
}
