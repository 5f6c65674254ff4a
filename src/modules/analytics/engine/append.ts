import type { DuckDBConnection } from "@duckdb/node-api";

/** How a column is appended; anything not named is text (null stays null). */
export type ColumnKind = "bigint" | "boolean" | "double" | "integer";

/**
 * Appends plain rows (the row store's, as read) to a DuckDB table with its appender — the bulk
 * path, no SQL per row. The caller holds the transaction.
 */
export async function appendRows(
  duck: DuckDBConnection,
  table: string,
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  kinds: Partial<Record<string, ColumnKind>> = {},
  schema?: "temp",
): Promise<void> {
  if (rows.length === 0) return;
  const a = schema ? await duck.createAppender(table, "main", "temp") : await duck.createAppender(table);
  for (const r of rows) {
    for (const c of columns) {
      const v = r[c];
      const kind = kinds[c];
      if (v === null || v === undefined) a.appendNull();
      else if (kind === "bigint") a.appendBigInt(BigInt(Math.trunc(Number(v))));
      else if (kind === "boolean") a.appendBoolean(v === true || Number(v) === 1);
      else if (kind === "double") a.appendDouble(Number(v));
      else if (kind === "integer") a.appendInteger(Math.trunc(Number(v)));
      else a.appendVarchar(String(v));
    }
    a.endRow();
  }
  a.flushSync();
  a.closeSync();
}

/**
 * Inserts rows that `table` does not hold yet (by `key`), through a temp table of its shape: a row
 * taken twice (a page and a change naming the same event) is held once.
 *
 * `atLeast` (a bigint column): a held row with the same key has at least the smallest value of
 * the new rows there — the caller knows why. The search for held rows then reads only the storage
 * that can hold such values (DuckDB's min/max per row group), not the whole table, whose size
 * grows with the store.
 *
 * Returns the temp table that holds the rows given (until the next call for `table`), or null when
 * none were given.
 */
export async function insertMissing(
  duck: DuckDBConnection,
  table: string,
  columns: readonly string[],
  key: readonly string[],
  rows: readonly Record<string, unknown>[],
  kinds: Partial<Record<string, ColumnKind>> = {},
  atLeast?: string,
): Promise<string | null> {
  if (rows.length === 0) return null;
  const staged = `staged_${table}`;
  await duck.run(`create temp table if not exists ${staged} as select * from ${table} limit 0`);
  await duck.run(`delete from ${staged}`);
  await appendRows(duck, staged, columns, rows, kinds, "temp");
  const same = key.map((k) => `t.${k} = n.${k}`).join(" and ");
  if (atLeast === undefined) {
    await duck.run(
      `insert into ${table} select n.* from ${staged} n where not exists (select 1 from ${table} t where ${same})`,
    );
    return staged;
  }
  // A constant bound (not a subquery), so that the scan of `table` is pruned by it.
  const least = rows.reduce((m, r) => Math.min(m, Math.trunc(Number(r[atLeast]))), Number.POSITIVE_INFINITY);
  await duck.run(
    `insert into ${table} select n.* from ${staged} n
      where not exists (select 1 from ${table} t where t.${atLeast} >= $1 and ${same})`,
    [BigInt(least)],
  );
  return staged;
}

/** Runs `work` in one DuckDB transaction (rolled back if it throws). */
export async function inTransaction<T>(duck: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await duck.run("begin");
  try {
    const out = await work();
    await duck.run("commit");
    return out;
  } catch (err) {
    await duck.run("rollback").catch(() => {});
    throw err;
  }
}
