import { type RawBuilder, sql } from "kysely";
import type { Trx } from "../../../platform/db/index.js";
import { type BreakdownDeltas, type BreakdownRow, breakdownRows } from "./breakdown-store.js";
import { mergedSketch } from "./hll.js";
import { type RollupDeltas, sortedRollups } from "./rollup-store.js";
import { weeklyRows } from "./sketches.js";

/** A rollup table as written here: its key columns (before `shard`), then counters added in SQL. */
interface Shape {
  name: string;
  keys: [column: string, type: string][];
  counters: [column: string, type: string][];
}

const SHAPES: Shape[] = [
  {
    name: "analytics_daily",
    keys: [
      ["project_id", "text"],
      ["day", "integer"],
      ["channel", "text"],
    ],
    counters: [
      ["conversions", "integer"],
      ["revenue", "double precision"],
      ["leads", "integer"],
    ],
  },
  {
    name: "analytics_weekly",
    keys: [
      ["project_id", "text"],
      ["week", "integer"],
      ["channel", "text"],
    ],
    counters: [],
  },
  ...(["day", "week"] as const).map((at) => ({
    name: `analytics_breakdown_${at === "day" ? "daily" : "weekly"}`,
    keys: [
      ["project_id", "text"],
      ["dimension", "text"],
      [at, "integer"],
      ["key", "text"],
    ] as [string, string][],
    counters: [
      ["conversions", "integer"],
      ["revenue", "double precision"],
    ] as [string, string][],
  })),
];
/** keys returned per row: the widest table's */
const KEY_COLUMNS = 4;

/** One row's change: key values and counters in its shape's column order, hashes for its sketch. */
interface Change {
  key: (string | number)[];
  counters: number[];
  hashes: Set<number>;
}

const rowId = (table: number, key: readonly unknown[]): string => `${table}\u0000${key.join("\u0000")}`;

/**
 * PostgreSQL: a flush's rollups (daily and weekly channel rows, daily and weekly breakdown rows of
 * this process's shard) in two statements, not a few per table and row. The first creates missing
 * rows, adds the counters and returns every row's sketch, locked (an upsert locks the latest
 * version of a row, even one another process committed meanwhile); the second writes the sketches
 * that gained a visitor. Every table's rows go in key order, tables in one order, so writers that
 * share a shard lock alike.
 */
export async function applyRollupsPostgres(
  trx: Trx,
  rollups: RollupDeltas,
  breakdowns: BreakdownDeltas,
  shard: number,
): Promise<void> {
  const daily = sortedRollups(rollups);
  const { daily: byDay, weekly: byWeek } = breakdownRows(breakdowns);
  const changes: Change[][] = [
    daily.map((d) => ({
      key: [d.projectId, d.day, d.channel],
      counters: [d.conversions, d.revenue, d.leads],
      hashes: d.visitorHashes,
    })),
    weeklyRows(daily).map((w) => ({ key: [w.projectId, w.week, w.channel], counters: [], hashes: w.hashes })),
    byDay.map(breakdownChange),
    byWeek.map(breakdownChange),
  ];
  const tables = changes.flatMap((rows, t) => (rows.length > 0 ? [t] : []));
  if (tables.length === 0) return;
  const locked = await sql<{ tb: number; k0: string; k1: string; k2: string; k3: string | null; s: string }>`
    with ${sql.join(tables.map((t) => sql`${sql.raw(`r${t}`)} as (${upsert(t, changes[t]!, shard)})`))}
    ${sql.join(
      tables.map((t) => sql.raw(`select * from r${t}`)),
      sql` union all `,
    )}`.execute(trx);
  const current = new Map<string, string>();
  for (const r of locked.rows)
    current.set(rowId(r.tb, [r.k0, r.k1, r.k2, r.k3].slice(0, SHAPES[r.tb]!.keys.length)), r.s);
  const writes: RawBuilder<unknown>[] = [];
  for (const t of tables) {
    const merged: { key: Change["key"]; sketch: string }[] = [];
    for (const c of changes[t]!) {
      if (c.hashes.size === 0) continue;
      const text = current.get(rowId(t, c.key));
      if (text === undefined) throw new Error(`rollup row of ${SHAPES[t]!.name} not returned by its upsert`);
      const sketch = mergedSketch(text, c.hashes, `${shard}|${rowId(t, c.key)}`);
      if (sketch !== null) merged.push({ key: c.key, sketch });
    }
    if (merged.length > 0) writes.push(sql`${sql.raw(`w${t}`)} as (${sketchUpdate(t, merged, shard)})`);
  }
  if (writes.length > 0) await sql`with ${sql.join(writes)} select 1`.execute(trx);
}

const breakdownChange = (r: BreakdownRow): Change => ({
  key: [r.projectId, r.dimension, r.at, r.key],
  counters: [r.conversions, r.revenue],
  hashes: r.visitorHashes,
});

/** `values` as one typed array parameter (unnest binds a column at a time). */
const array = (values: unknown[], type: string): RawBuilder<unknown> => sql`${values}::${sql.raw(type)}[]`;

/** Creates or locks table `t`'s rows, adds their counters, returns their keys as text and sketches. */
function upsert(t: number, rows: Change[], shard: number): RawBuilder<unknown> {
  const { name, keys, counters } = SHAPES[t]!;
  const cols = [...keys, ...counters];
  const u = cols.map((_, i) => `u${i}`);
  const arrays = [
    ...keys.map(([, type], i) =>
      array(
        rows.map((r) => r.key[i]),
        type,
      ),
    ),
    ...counters.map(([, type], i) =>
      array(
        rows.map((r) => r.counters[i]),
        type,
      ),
    ),
  ];
  const keyNames = keys.map(([c]) => c);
  const counterNames = counters.map(([c]) => c);
  // Without counters the update is a no-op that takes the row lock and returns the row.
  const set =
    counterNames.length > 0
      ? counterNames.map((c) => `${c} = t.${c} + excluded.${c}`).join(", ")
      : "visitors_sketch = t.visitors_sketch";
  const returned = Array.from({ length: KEY_COLUMNS }, (_, i) =>
    i < keyNames.length ? `t.${keyNames[i]}::text as k${i}` : `null::text as k${i}`,
  );
  return sql`insert into ${sql.raw(name)} as t (${sql.raw([...keyNames, "shard", "visitors_sketch", ...counterNames].join(", "))})
    select ${sql.raw(u.slice(0, keys.length).join(", "))}, ${shard}::integer, 's'${sql.raw(
      u
        .slice(keys.length)
        .map((c) => `, ${c}`)
        .join(""),
    )}
    from unnest(${sql.join(arrays)}) with ordinality as u(${sql.raw(u.join(", "))}, o) order by o
    on conflict (${sql.raw(keyNames.join(", "))}, shard) do update set ${sql.raw(set)}
    returning ${sql.raw(`${t}`)}::integer as tb, ${sql.raw(returned.join(", "))}, t.visitors_sketch as s`;
}

/** Writes merged sketches to table `t`'s rows (locked by `upsert` in this transaction). */
function sketchUpdate(
  t: number,
  rows: { key: Change["key"]; sketch: string }[],
  shard: number,
): RawBuilder<unknown> {
  const { name, keys } = SHAPES[t]!;
  const arrays = [
    ...keys.map(([, type], i) =>
      array(
        rows.map((r) => r.key[i]),
        type,
      ),
    ),
    array(
      rows.map((r) => r.sketch),
      "text",
    ),
  ];
  const match = keys.map(([c], i) => `t.${c} = v.u${i}`).join(" and ");
  return sql`update ${sql.raw(name)} t set visitors_sketch = v.s
    from unnest(${sql.join(arrays)}) as v(${sql.raw(keys.map((_, i) => `u${i}`).join(", "))}, s)
    where ${sql.raw(match)} and t.shard = ${shard}::integer`;
}
