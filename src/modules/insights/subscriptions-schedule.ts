import { type FrequencyT, WEEKDAYS, type WeekdayT } from "./subscriptions-schema.js";

/**
 * When a subscription is due: its scheduled moments (UTC) and the latest one at or before a time.
 * A send is keyed by its moment, so "once per period" is "once per moment".
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface Schedule {
  frequency: FrequencyT;
  hour: number;
  weekday: WeekdayT | null;
  dayOfMonth: number | null;
}

/** The latest scheduled moment at or before `now` (ms). */
export function latestMoment(s: Schedule, now: number): number {
  const today = Math.floor(now / DAY) * DAY;
  if (s.frequency === "daily") {
    const at = today + s.hour * HOUR;
    return at <= now ? at : at - DAY;
  }
  if (s.frequency === "weekly") {
    // 1970-01-01 was a Thursday: ISO weekday 1 (Monday) … 7 (Sunday).
    const todayIso = ((Math.floor(now / DAY) + 3) % 7) + 1;
    const want = WEEKDAYS.indexOf(s.weekday ?? "monday") + 1;
    const at = today - ((todayIso - want + 7) % 7) * DAY + s.hour * HOUR;
    return at <= now ? at : at - 7 * DAY;
  }
  const d = new Date(now);
  const day = s.dayOfMonth ?? 1;
  const at = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), day, s.hour);
  return at <= now ? at : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, day, s.hour);
}

/** The first scheduled moment after `now`. */
export function nextMoment(s: Schedule, now: number): number {
  const latest = latestMoment(s, now);
  if (s.frequency === "daily") return latest + DAY;
  if (s.frequency === "weekly") return latest + 7 * DAY;
  const d = new Date(latest);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), s.hour);
}

/**
 * The moment due at `now`, or null: the latest moment, once it is later than the last one sent
 * and not before the schedule began (a subscription made at 09:30 for 09:00 first sends tomorrow).
 * After downtime only the latest missed moment is sent, not a backlog of stale digests.
 */
export function dueMoment(
  s: Schedule,
  now: number,
  startsAt: number,
  lastPeriod: string | null,
): string | null {
  const at = latestMoment(s, now);
  if (at < startsAt) return null;
  const iso = new Date(at).toISOString();
  return lastPeriod !== null && iso <= lastPeriod ? null : iso;
}
