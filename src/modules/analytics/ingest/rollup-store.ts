import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { Trx } from "../../../platform/db/index.js";
import { VisitorSketch, mergedSketch } from "./hll.js";
import { preparedOn } from "../../../platform/db/statements.js";
import type { RollupDelta, RollupDeltas } from "./rollup-deltas.js";
import { weeklyRows } from "./sketches.js";
import "../tables.js";

export { ALL_CHANNELS, DAY_MS, type RollupDelta, RollupDeltas, dayOf } from "./rollup-deltas.js";

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** The daily row a delta writes, as mergedSketch's cache names it. */
const dailyRow = (d: RollupDelta) => `daily|${d.projectId}|${d.day}|${d.channel}`;
/**
 * SQLite (one writer): applies deltas inside the commit transaction. Rows are created first
 * (ON CONFLICT DO NOTHING), then read, the sketch merged and counters added in SQL. PostgreSQL
 * writes every rollup of a flush in two statements instead (rollup-store-pg.ts).
 */
export async function applyRollupDeltas(
  trx: Trx,
  deltas: RollupDeltas,
  raw?: SQLite.Database,
): Promise<void> {
  if (deltas.rows.length === 0) return;
  const list = sortedRollups(deltas);
  await applyWeeklySketches(trx, list, raw);
  if (raw) return applyRaw(raw, list);
  const empty = new VisitorSketch().serialize();
  for (let i = 0; i < list.length; i += 500) {
    await trx
      .insertInto("analytics_daily")
      .values(
        list.slice(i, i + 500).map((d) => ({
          project_id: d.projectId,
          day: d.day,
          channel: d.channel,
          visitors_sketch: empty,
          conversions: 0,
          revenue: 0,
          leads: 0,
        })),
      )
      .onConflict((oc) => oc.columns(["project_id", "day", "channel"]).doNothing())
      .execute();
  }
  for (const d of list) {
    let sketchText: string | undefined;
    if (d.visitorHashes.size > 0) {
      const row = await trx
        .selectFrom("analytics_daily")
        .select("visitors_sketch")
        .where("project_id", "=", d.projectId)
        .where("day", "=", d.day)
        .where("channel", "=", d.channel)
        .executeTakeFirstOrThrow();
      sketchText = mergedSketch(row.visitors_sketch, d.visitorHashes, dailyRow(d)) ?? undefined;
    }
    if (sketchText === undefined && d.conversions === 0 && d.revenue === 0 && d.leads === 0) continue;
    await trx
      .updateTable("analytics_daily")
      .set({
        ...(sketchText !== undefined ? { visitors_sketch: sketchText } : {}),
        conversions: sql`conversions + ${d.conversions}`,
        revenue: sql`revenue + ${d.revenue}`,
        leads: sql`leads + ${d.leads}`,
      })
      .where("project_id", "=", d.projectId)
      .where("day", "=", d.day)
      .where("channel", "=", d.channel)
      .execute();
  }
}

/** The deltas in key order: two PostgreSQL writers then lock shared rows in the same order. */
export function sortedRollups(deltas: RollupDeltas): RollupDelta[] {
  return [...deltas.rows].sort(
    (a, b) => cmp(a.projectId, b.projectId) || a.day - b.day || cmp(a.channel, b.channel),
  );
}

const EMPTY_SKETCH = "s";
const SQL = {
  ensure:
    "insert into analytics_daily (project_id, day, channel, visitors_sketch, conversions, revenue, leads) values (?, ?, ?, 's', 0, 0, 0) on conflict (project_id, day, channel) do nothing",
  select: "select visitors_sketch from analytics_daily where project_id = ? and day = ? and channel = ?",
  update:
    "update analytics_daily set visitors_sketch = coalesce(?, visitors_sketch), conversions = conversions + ?, revenue = revenue + ?, leads = leads + ? where project_id = ? and day = ? and channel = ?",
};

/** SQLite (one writer): the same steps as prepared statements on the transaction's connection. */
function applyRaw(raw: SQLite.Database, list: RollupDelta[]): void {
  const ensure = preparedOn(raw, SQL.ensure);
  const select = preparedOn(raw, SQL.select);
  const update = preparedOn(raw, SQL.update);
  for (const d of list) {
    ensure.run(d.projectId, d.day, d.channel);
    let sketchText: string | null = null;
    if (d.visitorHashes.size > 0) {
      const row = select.get(d.projectId, d.day, d.channel) as { visitors_sketch: string } | undefined;
      sketchText = mergedSketch(row?.visitors_sketch ?? EMPTY_SKETCH, d.visitorHashes, dailyRow(d));
    }
    if (sketchText === null && d.conversions === 0 && d.revenue === 0 && d.leads === 0) continue;
    update.run(sketchText, d.conversions, d.revenue, d.leads, d.projectId, d.day, d.channel);
  }
}

/**
 * SQLite (one writer): adds the day rows' visitor hashes to their weeks' sketches (same
 * transaction). Built from the batch's daily deltas, so it costs nothing per event. PostgreSQL
 * writes them with the other rollups (rollup-store-pg.ts).
 */
export async function applyWeeklySketches(
  trx: Trx,
  daily: RollupDelta[],
  raw?: SQLite.Database,
): Promise<void> {
  for (const w of weeklyRows(daily)) {
    let text: string;
    if (raw) {
      preparedOn(
        raw,
        "insert into analytics_weekly (project_id, week, channel, visitors_sketch) values (?, ?, ?, 's') on conflict (project_id, week, channel) do nothing",
      ).run(w.projectId, w.week, w.channel);
      text = (
        preparedOn(
          raw,
          "select visitors_sketch from analytics_weekly where project_id = ? and week = ? and channel = ?",
        ).get(w.projectId, w.week, w.channel) as { visitors_sketch: string }
      ).visitors_sketch;
    } else {
      await trx
        .insertInto("analytics_weekly")
        .values({ project_id: w.projectId, week: w.week, channel: w.channel, visitors_sketch: "s" })
        .onConflict((oc) => oc.columns(["project_id", "week", "channel"]).doNothing())
        .execute();
      text = (
        await trx
          .selectFrom("analytics_weekly")
          .select("visitors_sketch")
          .where("project_id", "=", w.projectId)
          .where("week", "=", w.week)
          .where("channel", "=", w.channel)
          .executeTakeFirstOrThrow()
      ).visitors_sketch;
    }
    const next = mergedSketch(text, w.hashes, `weekly|${w.projectId}|${w.week}|${w.channel}`);
    if (next === null) continue;
    if (raw)
      preparedOn(
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
        .execute();
  }
}
