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
 */
export async function insertMissing(
  duck: DuckDBConnection,
  table: string,
  columns: readonly string[],
  key: readonly string[],
  rows: readonly Record<string, unknown>[],
  kinds: Partial<Record<string, ColumnKind>> = {},
): Promise<void> {
  if (rows.length === 0) return;
  const staged = `staged_${table}`;
  await duck.run(`create temp table if not exists ${staged} as select * from ${table} limit 0`);
  await duck.run(`delete from ${staged}`);
  await appendRows(duck, staged, columns, rows, kinds, "temp");
  const same = key.map((k) => `t.${k} = n.${k}`).join(" and ");
  await duck.run(
    `insert into ${table} select n.* from ${staged} n where not exists (select 1 from ${table} t where ${same})`,
  );
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
