import { PostgresAdapter, sql } from "kysely";
import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import { VisitorSketch } from "./hll.js";
import "./tables.js";

/** Row locks only matter (and only parse) on PostgreSQL. */
export function isPostgresDb(db: DbOrTrx): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * A row per day holding only the day's visitor sketch over all channels, so totals merge one
 * sketch per day instead of one per day and channel. Real channel names never start with "$".
 */
export const ALL_CHANNELS = "$all";

export const DAY_MS = 86_400_000;
export const dayOf = (ts: number): number => Math.floor(ts / DAY_MS);

/** Changes to one rollup row (project × UTC day × channel) collected from a batch. */
export interface RollupDelta {
  projectId: string;
  day: number;
  channel: string;
  visitorHashes: Set<number>;
  conversions: number;
  revenue: number;
  leads: number;
}

export class RollupDeltas {
  readonly rows = new Map<string, RollupDelta>();
  get(projectId: string, ts: number, channel: string): RollupDelta {
    const day = dayOf(ts);
    const key = `${projectId}\u0000${day}\u0000${channel}`;
    let d = this.rows.get(key);
    if (!d) {
      d = { projectId, day, channel, visitorHashes: new Set(), conversions: 0, revenue: 0, leads: 0 };
      this.rows.set(key, d);
    }
    return d;
  }
}

/**
 * Applies deltas inside the commit transaction. Rows are created first (ON CONFLICT DO NOTHING),
 * then read — FOR UPDATE on PostgreSQL, where concurrent writers exist; SQLite has one writer —
 * so merging a sketch never loses another transaction's visitors. Counters are added in SQL.
 */
export async function applyRollupDeltas(trx: Trx, deltas: RollupDeltas): Promise<void> {
  const postgres = isPostgresDb(trx);
  const list = [...deltas.rows.values()];
  if (list.length === 0) return;
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
      let q = trx
        .selectFrom("analytics_daily")
        .select("visitors_sketch")
        .where("project_id", "=", d.projectId)
        .where("day", "=", d.day)
        .where("channel", "=", d.channel);
      if (postgres) q = q.forUpdate();
      const row = await q.executeTakeFirstOrThrow();
      const sketch = VisitorSketch.parse(row.visitors_sketch);
      for (const h of d.visitorHashes) sketch.add(h);
      sketchText = sketch.serialize();
      if (sketchText === row.visitors_sketch) sketchText = undefined;
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
