import type SQLite from "better-sqlite3";
import { type DbOrTrx, type Trx, isPostgresDb } from "../../platform/db/index.js";
import { VisitorSketch } from "./hll.js";
import { statement } from "./raw.js";
import type { RollupDelta } from "./rollup-store.js";
import { rollupKey } from "./shard.js";
import "./tables.js";

/** Monday-based UTC weeks: day 0 (1970-01-01) was a Thursday. */
export const weekOf = (day: number): number => Math.floor((day + 3) / 7);
export const weekStart = (week: number): number => week * 7 - 3;

/**
 * Adds the day rows' visitor hashes to their weeks' sketches (same transaction). Built from the
 * batch's daily deltas, so it costs nothing per event.
 */
export async function applyWeeklySketches(
  trx: Trx,
  daily: RollupDelta[],
  raw?: SQLite.Database,
  shard = 0,
): Promise<void> {
  const weeks = new Map<string, { projectId: string; week: number; channel: string; hashes: Set<number> }>();
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
  const postgres = !raw && isPostgresDb(trx);
  // In key order, so two PostgreSQL writers lock shared rows in the same order (no deadlock).
  const ordered = [...weeks.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, w]) => w);
  for (const w of ordered) {
    let text: string | undefined;
    if (raw) {
      statement(
        raw,
        "insert into analytics_weekly (project_id, week, channel, visitors_sketch) values (?, ?, ?, 's') on conflict (project_id, week, channel) do nothing",
      ).run(w.projectId, w.week, w.channel);
      text = (
        statement(
          raw,
          "select visitors_sketch from analytics_weekly where project_id = ? and week = ? and channel = ?",
        ).get(w.projectId, w.week, w.channel) as { visitors_sketch: string }
      ).visitors_sketch;
    } else {
      await trx
        .insertInto("analytics_weekly")
        .values({ project_id: w.projectId, week: w.week, channel: w.channel, shard, visitors_sketch: "s" })
        .onConflict((oc) => oc.columns(rollupKey(["project_id", "week", "channel"], postgres)).doNothing())
        .execute();
      let q = trx
        .selectFrom("analytics_weekly")
        .select("visitors_sketch")
        .where("project_id", "=", w.projectId)
        .where("week", "=", w.week)
        .where("channel", "=", w.channel)
        .where("shard", "=", shard);
      if (postgres) q = q.forUpdate();
      text = (await q.executeTakeFirstOrThrow()).visitors_sketch;
    }
    const sketch = VisitorSketch.parse(text);
    let changed = false;
    for (const h of w.hashes) changed = sketch.add(h) || changed;
    if (!changed) continue;
    const next = sketch.serialize();
    if (raw)
      statement(
        raw,
        "update analytics_weekly set visitors_sketch = ? where project_id = ? and week = ? and channel = ?",
      ).run(next, w.projectId, w.week, w.channel);
    else
      await trx
        .updateTable("analytics_weekly")
        .set({ visitors_sketch: next })
        .where("project_id", "=", w.projectId)
        .where("week", "=", w.week)
        .where("channel", "=", w.channel)
        .where("shard", "=", shard)
        .execute();
  }
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
