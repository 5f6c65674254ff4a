import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import { type Trx, isPostgresDb } from "../../platform/db/index.js";
import { VisitorSketch } from "./hll.js";
import { statement } from "./raw.js";
import { dayOf } from "./rollup-store.js";
import { weekOf } from "./sketches.js";
import "./tables.js";

/** Changes to one breakdown row (project × dimension × UTC day × key) collected from a batch. */
export interface BreakdownDelta {
  projectId: string;
  dimension: string;
  day: number;
  key: string;
  visitorHashes: Set<number>;
  conversions: number;
  revenue: number;
}

export class BreakdownDeltas {
  readonly rows: BreakdownDelta[] = [];
  // project → dimension → day → key: no key string built per call (event_type is per event)
  private index = new Map<string, Map<string, Map<number, Map<string, BreakdownDelta>>>>();
  get(projectId: string, dimension: string, ts: number, key: string): BreakdownDelta {
    const day = dayOf(ts);
    const keys = inner(inner(inner(this.index, projectId), dimension), day);
    let d = keys.get(key);
    if (!d) {
      d = { projectId, dimension, day, key, visitorHashes: new Set(), conversions: 0, revenue: 0 };
      keys.set(key, d);
      this.rows.push(d);
    }
    return d;
  }
}

/** The map under `key`, created when missing. */
function inner<K, K2, V>(map: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let m = map.get(key);
  if (!m) {
    m = new Map();
    map.set(key, m);
  }
  return m;
}

interface Row {
  projectId: string;
  dimension: string;
  /** day (daily table) or Monday-based week (weekly table) */
  at: number;
  key: string;
  visitorHashes: Set<number>;
  conversions: number;
  revenue: number;
}

const TABLES = {
  daily: { name: "analytics_breakdown_daily", at: "day" },
  weekly: { name: "analytics_breakdown_weekly", at: "week" },
} as const;
type Table = (typeof TABLES)[keyof typeof TABLES];

/**
 * Applies a batch's breakdown deltas in the commit transaction: the daily rows, and the weekly
 * sketches built from them. Rows are taken in primary-key order, so two PostgreSQL writers lock
 * them in the same order; rows are created (ON CONFLICT DO NOTHING), read (FOR UPDATE on
 * PostgreSQL) and written back with the sketch merged and the counters added.
 */
export async function applyBreakdownDeltas(
  trx: Trx,
  deltas: BreakdownDeltas,
  raw?: SQLite.Database,
  shard = 0,
): Promise<void> {
  if (deltas.rows.length === 0) return;
  const daily: Row[] = deltas.rows.map((d) => ({ ...d, at: d.day }));
  const weeks = new Map<string, Row>();
  for (const d of deltas.rows) {
    const week = weekOf(d.day);
    const id = `${d.projectId}\u0000${d.dimension}\u0000${week}\u0000${d.key}`;
    let w = weeks.get(id);
    if (!w) {
      w = {
        projectId: d.projectId,
        dimension: d.dimension,
        at: week,
        key: d.key,
        visitorHashes: new Set(),
        conversions: 0,
        revenue: 0,
      };
      weeks.set(id, w);
    }
    for (const h of d.visitorHashes) w.visitorHashes.add(h);
    w.conversions += d.conversions;
    w.revenue += d.revenue;
  }
  const passes: [Table, Row[]][] = [
    [TABLES.daily, daily],
    [TABLES.weekly, [...weeks.values()]],
  ];
  if (!raw && !isPostgresDb(trx)) throw new Error("breakdowns on SQLite need the raw connection");
  for (const [table, rows] of passes) {
    rows.sort(byPrimaryKey);
    if (raw) applyRaw(raw, table, rows);
    else await applyKysely(trx, table, rows, shard);
  }
}

const byPrimaryKey = (a: Row, b: Row): number =>
  cmp(a.projectId, b.projectId) || cmp(a.dimension, b.dimension) || a.at - b.at || cmp(a.key, b.key);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The merged sketch's text, or null when no hash was new. */
function mergedSketch(text: string, hashes: Set<number>): string | null {
  if (hashes.size === 0) return null;
  const sketch = VisitorSketch.parse(text);
  let changed = false;
  for (const h of hashes) changed = sketch.add(h) || changed;
  return changed ? sketch.serialize() : null;
}

function applyRaw(raw: SQLite.Database, t: Table, rows: Row[]): void {
  const where = `project_id = ? and dimension = ? and ${t.at} = ? and key = ?`;
  const ensure = statement(
    raw,
    `insert into ${t.name} (project_id, dimension, ${t.at}, key, visitors_sketch, conversions, revenue) values (?, ?, ?, ?, 's', 0, 0) on conflict do nothing`,
  );
  const select = statement(raw, `select visitors_sketch from ${t.name} where ${where}`);
  const update = statement(
    raw,
    `update ${t.name} set visitors_sketch = coalesce(?, visitors_sketch), conversions = conversions + ?, revenue = revenue + ? where ${where}`,
  );
  for (const r of rows) {
    const pk = [r.projectId, r.dimension, r.at, r.key];
    ensure.run(...pk);
    const current = select.get(...pk) as { visitors_sketch: string };
    const sketch = mergedSketch(current.visitors_sketch, r.visitorHashes);
    if (sketch !== null || r.conversions !== 0 || r.revenue !== 0)
      update.run(sketch, r.conversions, r.revenue, ...pk);
  }
}

const CHUNK = 200;

/** PostgreSQL (and any Kysely connection): a few statements per chunk of rows, not per row. */
async function applyKysely(trx: Trx, t: Table, rows: Row[], shard: number): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const keys = sql.join(
      chunk.map((r) => sql`(${r.projectId}, ${r.dimension}, ${r.at}::integer, ${r.key})`),
    );
    await sql`insert into ${sql.table(t.name)} (project_id, dimension, ${sql.ref(t.at)}, key, shard, visitors_sketch, conversions, revenue)
      select k.p, k.d, k.a, k.k, ${shard}::integer, 's', 0, 0 from (values ${keys}) as k(p, d, a, k)
      order by 1, 2, 3, 4 on conflict do nothing`.execute(trx);
    const current = await sql<{
      project_id: string;
      dimension: string;
      at: number;
      key: string;
      visitors_sketch: string;
    }>`
      select t.project_id, t.dimension, t.${sql.ref(t.at)} as at, t.key, t.visitors_sketch
      from ${sql.table(t.name)} t join (values ${keys}) as k(p, d, a, k)
        on t.project_id = k.p and t.dimension = k.d and t.${sql.ref(t.at)} = k.a and t.key = k.k
      where t.shard = ${shard}::integer
      order by 1, 2, 3, 4 for update of t`.execute(trx);
    const texts = new Map(
      current.rows.map((c) => [rowId(c.project_id, c.dimension, Number(c.at), c.key), c.visitors_sketch]),
    );
    const changes = [];
    for (const r of chunk) {
      const sketch = mergedSketch(
        texts.get(rowId(r.projectId, r.dimension, r.at, r.key)) ?? "s",
        r.visitorHashes,
      );
      if (sketch === null && r.conversions === 0 && r.revenue === 0) continue;
      changes.push(
        sql`(${r.projectId}, ${r.dimension}, ${r.at}::integer, ${r.key}, ${sketch}::text, ${r.conversions}::integer, ${r.revenue}::double precision)`,
      );
    }
    if (changes.length === 0) continue;
    await sql`update ${sql.table(t.name)} t set visitors_sketch = coalesce(v.s, t.visitors_sketch), conversions = t.conversions + v.c, revenue = t.revenue + v.r
      from (values ${sql.join(changes)}) as v(p, d, a, k, s, c, r)
      where t.project_id = v.p and t.dimension = v.d and t.${sql.ref(t.at)} = v.a and t.key = v.k
        and t.shard = ${shard}::integer`.execute(trx);
  }
}

const rowId = (p: string, d: string, at: number, k: string): string => `${p}\u0000${d}\u0000${at}\u0000${k}`;
