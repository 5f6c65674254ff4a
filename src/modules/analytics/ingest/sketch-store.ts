import { isPostgresDb, type Trx } from "../../../platform/db/index.js";
import { rollupKey } from "../../../platform/db/shard.js";
import "../tables.js";

/**
 * Rebuilt sketches as `[outer, inner, sketch]` rows: `outer` is the day or week (a breakdown's:
 * its dimension, NUL, the day or week), `inner` the channel or the breakdown's key.
 */
export interface SketchRows {
  rows(): Iterable<[string, string, string]>;
}

/**
 * Writes a rebuild's visitor sketches over those of `days` and `weeks` (daily and weekly rollups,
 * breakdowns), in the caller's transaction.
 */
export async function writeRebuiltSketches(
  trx: Trx,
  projectId: string,
  daily: SketchRows,
  weekly: SketchRows,
  bdDaily: SketchRows,
  bdWeekly: SketchRows,
  days: number[],
  weeks: number[],
): Promise<void> {
  // Every sketch of those days and weeks starts empty (every shard's row on PostgreSQL); counters
  // stay. The rebuilt sketches go to shard 0's rows: reads merge the shards' sketches.
  const postgres = isPostgresDb(trx);
  await trx
    .updateTable("analytics_daily")
    .set({ visitors_sketch: "s" })
    .where("project_id", "=", projectId)
    .where("day", "in", days)
    .execute();
  await trx
    .updateTable("analytics_weekly")
    .set({ visitors_sketch: "s" })
    .where("project_id", "=", projectId)
    .where("week", "in", weeks)
    .execute();
  await trx
    .updateTable("analytics_breakdown_daily")
    .set({ visitors_sketch: "s" })
    .where("project_id", "=", projectId)
    .where("day", "in", days)
    .execute();
  await trx
    .updateTable("analytics_breakdown_weekly")
    .set({ visitors_sketch: "s" })
    .where("project_id", "=", projectId)
    .where("week", "in", weeks)
    .execute();
  for (const [day, channel, sketch] of daily.rows())
    await trx
      .insertInto("analytics_daily")
      .values({
        project_id: projectId,
        day: Number(day),
        channel,
        visitors_sketch: sketch,
        conversions: 0,
        revenue: 0,
        leads: 0,
      })
      .onConflict((oc) =>
        oc
          .columns(rollupKey(["project_id", "day", "channel"], postgres))
          .doUpdateSet({ visitors_sketch: sketch }),
      )
      .execute();
  for (const [week, channel, sketch] of weekly.rows())
    await trx
      .insertInto("analytics_weekly")
      .values({ project_id: projectId, week: Number(week), channel, visitors_sketch: sketch })
      .onConflict((oc) =>
        oc
          .columns(rollupKey(["project_id", "week", "channel"], postgres))
          .doUpdateSet({ visitors_sketch: sketch }),
      )
      .execute();
  for (const [outer, key, sketch] of bdDaily.rows()) {
    const [dimension, day] = outer.split("\u0000") as [string, string];
    await trx
      .insertInto("analytics_breakdown_daily")
      .values({
        project_id: projectId,
        dimension,
        day: Number(day),
        key,
        visitors_sketch: sketch,
        conversions: 0,
        revenue: 0,
      })
      .onConflict((oc) =>
        oc
          .columns(rollupKey(["project_id", "dimension", "day", "key"], postgres))
          .doUpdateSet({ visitors_sketch: sketch }),
      )
      .execute();
  }
  for (const [outer, key, sketch] of bdWeekly.rows()) {
    const [dimension, week] = outer.split("\u0000") as [string, string];
    await trx
      .insertInto("analytics_breakdown_weekly")
      .values({
        project_id: projectId,
        dimension,
        week: Number(week),
        key,
        visitors_sketch: sketch,
        conversions: 0,
        revenue: 0,
      })
      .onConflict((oc) =>
        oc
          .columns(rollupKey(["project_id", "dimension", "week", "key"], postgres))
          .doUpdateSet({ visitors_sketch: sketch }),
      )
      .execute();
  }
}
