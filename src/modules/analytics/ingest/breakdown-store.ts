import type SQLite from "better-sqlite3";
import { mergedSketch } from "./hll.js";
import { preparedOn } from "../../../platform/db/statements.js";
import { dayOf } from "./rollup-store.js";
import { weekOf } from "./sketches.js";
import "../tables.js";

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

/** A breakdown row's changes: `at` is the day (daily table) or Monday-based week (weekly table). */
export interface BreakdownRow {
  projectId: string;
  dimension: string;
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
 * A batch's breakdown rows: the daily ones, and the weekly ones built from them, each list in
 * primary-key order (so two PostgreSQL writers lock them in the same order).
 */
export function breakdownRows(deltas: BreakdownDeltas): { daily: BreakdownRow[]; weekly: BreakdownRow[] } {
  const daily: BreakdownRow[] = deltas.rows.map((d) => ({ ...d, at: d.day }));
  const weeks = new Map<string, BreakdownRow>();
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
  return { daily: daily.sort(byPrimaryKey), weekly: [...weeks.values()].sort(byPrimaryKey) };
}

/**
 * SQLite (one writer): applies a batch's breakdown deltas in the commit transaction, the daily
 * rows and the weekly ones; rows are created (ON CONFLICT DO NOTHING), read, and written back with
 * the sketch merged and the counters added. PostgreSQL writes them with the other rollups
 * (rollup-store-pg.ts).
 */
export function applyBreakdownDeltas(raw: SQLite.Database, deltas: BreakdownDeltas): void {
  if (deltas.rows.length === 0) return;
  const { daily, weekly } = breakdownRows(deltas);
  applyRaw(raw, TABLES.daily, daily);
  applyRaw(raw, TABLES.weekly, weekly);
}

const byPrimaryKey = (a: BreakdownRow, b: BreakdownRow): number =>
  cmp(a.projectId, b.projectId) || cmp(a.dimension, b.dimension) || a.at - b.at || cmp(a.key, b.key);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function applyRaw(raw: SQLite.Database, t: Table, rows: BreakdownRow[]): void {
  const where = `project_id = ? and dimension = ? and ${t.at} = ? and key = ?`;
  const ensure = preparedOn(
    raw,
    `insert into ${t.name} (project_id, dimension, ${t.at}, key, visitors_sketch, conversions, revenue) values (?, ?, ?, ?, 's', 0, 0) on conflict do nothing`,
  );
  const select = preparedOn(raw, `select visitors_sketch from ${t.name} where ${where}`);
  const update = preparedOn(
    raw,
    `update ${t.name} set visitors_sketch = coalesce(?, visitors_sketch), conversions = conversions + ?, revenue = revenue + ? where ${where}`,
  );
  for (const r of rows) {
    const pk = [r.projectId, r.dimension, r.at, r.key];
    ensure.run(...pk);
    const current = select.get(...pk) as { visitors_sketch: string };
    const sketch = mergedSketch(current.visitors_sketch, r.visitorHashes, `${t.name}|${pk.join("|")}`);
    if (sketch !== null || r.conversions !== 0 || r.revenue !== 0)
      update.run(sketch, r.conversions, r.revenue, ...pk);
  }
}
