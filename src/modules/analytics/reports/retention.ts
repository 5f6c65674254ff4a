import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { retentionSql } from "../engine/retention-sql.js";
import { EngineQuery } from "../engine/sql.js";
import type { Condition } from "../filters/filter.js";
import type { Period } from "./period.js";
import { DAY_MS } from "../ingest/rollup-store.js";
import { weekOf, weekStart } from "../ingest/sketches.js";

export type RetentionInterval = "day" | "week";

export interface Cohort {
  /** first day of the interval (YYYY-MM-DD) */
  start: string;
  size: number;
  /** returned[k]: people of the cohort active k intervals after it; returned[0] is the size */
  returned: number[];
}

const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * Retention cohorts over the period: a person (a lead's visitors together) joins the cohort of the
 * interval of their first `startEvent` ever, when it falls inside the period; `returned[k]` counts
 * those with a `returnEvent` (any event by default) k intervals later, up to the period's end.
 * Bots are left out. With a filter, only the people it selects in the period
 * (docs/decisions/identity-analytics.md, "Filters and cohorts"). One query on the analytics
 * engine over the events (engine/retention-sql.ts); a count per cohort and interval comes back.
 */
export async function analyticsRetention(
  deps: ReadDeps,
  project: ProjectRef,
  period: Period,
  interval: RetentionInterval,
  startEvent: string,
  returnEvent: string | null,
  conds: Condition[],
): Promise<{
  interval: RetentionInterval;
  period: { from: string; to: string };
  cohorts: Cohort[];
  partialFirst: boolean;
  partialLast: boolean;
}> {
  const slotOfDay = (day: number): number => (interval === "day" ? day : weekOf(day));
  const firstSlot = slotOfDay(period.fromDay);
  const lastSlot = slotOfDay(period.toDay);
  const q = new EngineQuery();
  const text = await retentionSql(
    q,
    deps,
    project,
    { interval, fromDay: period.fromDay, toDay: period.toDay, startEvent, returnEvent },
    conds,
  );
  const rows = await deps.engine.query<{ c: number; k: number; n: number }>(...q.bound(text));
  // One cohort per interval of the period, empty ones included: the table has no holes.
  const cohorts: Cohort[] = [];
  for (let s = firstSlot; s <= lastSlot; s++)
    cohorts.push({
      start: isoDay(interval === "day" ? s : weekStart(s)),
      size: 0,
      returned: Array.from({ length: lastSlot - s + 1 }, () => 0),
    });
  for (const r of rows) {
    const cohort = cohorts[Number(r.c) - firstSlot]!;
    cohort.returned[Number(r.k)] = Number(r.n);
    if (Number(r.k) === 0) cohort.size = Number(r.n);
  }
  return {
    interval,
    period: { from: period.from, to: period.to },
    cohorts,
    ...cutIntervals(period, interval),
  };
}

/**
 * Which of the period's intervals it cuts, so a table can mark them rather than show a dip: the
 * first when the period starts after its interval does (a week begun before it: that cohort counts
 * only the period's days), the last when the period ends before its interval does or holds today
 * (every cohort's last cell, and the last cohort, count only part of it).
 */
function cutIntervals(
  period: Period,
  interval: RetentionInterval,
): { partialFirst: boolean; partialLast: boolean } {
  const today = Math.floor(Date.now() / DAY_MS);
  if (interval === "day") return { partialFirst: false, partialLast: period.toDay >= today };
  return {
    partialFirst: weekStart(weekOf(period.fromDay)) !== period.fromDay,
    partialLast: weekStart(weekOf(period.toDay)) + 6 !== period.toDay || period.toDay >= today,
  };
}
