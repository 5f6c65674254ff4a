import type { DbOrTrx } from "../../../platform/db/index.js";
import type { RollupDelta } from "./rollup-deltas.js";
import "../tables.js";

/** Monday-based UTC weeks: day 0 (1970-01-01) was a Thursday. */
export const weekOf = (day: number): number => Math.floor((day + 3) / 7);
export const weekStart = (week: number): number => week * 7 - 3;

/** A week's visitor hashes for one project and channel, gathered from daily deltas. */
export interface WeeklyRow {
  projectId: string;
  week: number;
  channel: string;
  hashes: Set<number>;
}

/** The weeks the daily deltas' visitor hashes fall in, in key order (so writers lock alike). */
export function weeklyRows(daily: RollupDelta[]): WeeklyRow[] {
  const weeks = new Map<string, WeeklyRow>();
  for (const d of daily) {
    if (d.visitorHashes.size === 0) continue;
    const week = weekOf(d.day);
    const key = `${d.projectId}|${week}|${d.channel}`;
    let w = weeks.get(key);
    if (!w) {
      w = { projectId: d.projectId, week, channel: d.channel, hashes: new Set() };
      weeks.set(key, w);
    }
    for (const h of d.visitorHashes) w.hashes.add(h);
  }
  return [...weeks.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, w]) => w);
}

/**
 * How [fromDay, toDay] is read from sketches: the full weeks inside it (null when none) from the
 * weekly rows, and the days outside those weeks (at most two ranges) from the daily rows.
 */
export function weekCover(
  fromDay: number,
  toDay: number,
): { weeks: { from: number; to: number } | null; days: { from: number; to: number }[] } {
  const firstWeek = weekStart(weekOf(fromDay)) === fromDay ? weekOf(fromDay) : weekOf(fromDay) + 1;
  const lastWeek = weekStart(weekOf(toDay)) + 6 === toDay ? weekOf(toDay) : weekOf(toDay) - 1;
  if (firstWeek > lastWeek) return { weeks: null, days: [{ from: fromDay, to: toDay }] };
  const days = [];
  if (fromDay < weekStart(firstWeek)) days.push({ from: fromDay, to: weekStart(firstWeek) - 1 });
  if (weekStart(lastWeek) + 6 < toDay) days.push({ from: weekStart(lastWeek) + 7, to: toDay });
  return { weeks: { from: firstWeek, to: lastWeek }, days };
}

/**
 * The visitor sketches covering [fromDay, toDay]: weekly rows for the full weeks inside it, daily
 * rows for the days at either edge. `channel` restricts to one channel (e.g. "$all").
 */
export async function sketchesFor(
  db: DbOrTrx,
  projectId: string,
  fromDay: number,
  toDay: number,
  channel?: string,
): Promise<{ channel: string; visitors_sketch: string }[]> {
  const cover = weekCover(fromDay, toDay);
  const rows: { channel: string; visitors_sketch: string }[] = [];
  if (cover.weeks) {
    let weekly = db
      .selectFrom("analytics_weekly")
      .select(["channel", "visitors_sketch"])
      .where("project_id", "=", projectId)
      .where("week", ">=", cover.weeks.from)
      .where("week", "<=", cover.weeks.to);
    if (channel) weekly = weekly.where("channel", "=", channel);
    rows.push(...(await weekly.execute()));
  }
  for (const range of cover.days) {
    let q = db
      .selectFrom("analytics_daily")
      .select(["channel", "visitors_sketch"])
      .where("project_id", "=", projectId)
      .where("day", ">=", range.from)
      .where("day", "<=", range.to);
    if (channel) q = q.where("channel", "=", channel);
    rows.push(...(await q.execute()));
  }
  return rows;
}
