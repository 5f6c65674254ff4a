import { ISO_DATE_OR_TIME as ISO } from "../../../platform/validation.js";
import { validation } from "../../../platform/errors.js";
import { DAY_MS, dayOf } from "../ingest/rollup-store.js";

export interface Period {
  fromDay: number;
  toDay: number;
  /** ISO dates (YYYY-MM-DD), both inclusive */
  from: string;
  to: string;
}

const PRESETS: Record<string, number> = { "7d": 7, "30d": 30, "90d": 90 };
/** A custom range longer than this is refused: the rollup read grows with days. */
const MAX_CUSTOM_DAYS = 3660;

const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

function parseIsoDay(value: string, field: string): number {
  const ms = ISO.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw validation(`${field} must be an ISO 8601 date (YYYY-MM-DD)`);
  return dayOf(ms);
}

/**
 * Presets end today (UTC) and count whole UTC days: 7d = today and the 6 days before it.
 * `custom` takes `from` and `to` (ISO dates, both inclusive, from ≤ to); `from`/`to` without a
 * period mean custom too. `where` names the fields in errors (a saved insight's `body.settings`).
 */
export function resolvePeriod(
  q: { period?: string; from?: string; to?: string },
  now: number = Date.now(),
  where = "query",
): Period {
  const period = q.period ?? (q.from !== undefined || q.to !== undefined ? "custom" : "30d");
  if (period === "custom") {
    if (q.from === undefined) throw validation(`${where}.from is required when period is custom`);
    if (q.to === undefined) throw validation(`${where}.to is required when period is custom`);
    const fromDay = parseIsoDay(q.from, `${where}.from`);
    const toDay = parseIsoDay(q.to, `${where}.to`);
    if (fromDay > toDay) throw validation(`${where}.from must not be after ${where}.to`);
    if (toDay - fromDay + 1 > MAX_CUSTOM_DAYS)
      throw validation(`${where}.from: a custom period spans at most ${MAX_CUSTOM_DAYS} days`);
    return { fromDay, toDay, from: isoDay(fromDay), to: isoDay(toDay) };
  }
  const days = PRESETS[period];
  if (days === undefined) throw validation(`${where}.period must be one of 7d, 30d, 90d, custom`);
  const toDay = dayOf(now);
  const fromDay = toDay - days + 1;
  return { fromDay, toDay, from: isoDay(fromDay), to: isoDay(toDay) };
}
