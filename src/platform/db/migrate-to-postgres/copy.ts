import type SQLite from "better-sqlite3";
import type pg from "pg";
import { PROGRESS_TABLE, type Plan, Refusal, type TablePlan, quote } from "./schema.js";
import { ValueError, decodeKey, encodeKey, toPg } from "./values.js";

export interface TableProgressRow {
  sourceRows: number;
  rowsCopied: number;
  /** keyset position after the last committed chunk (encodeKey), null before the first */
  lastKey: string | null;
  done: boolean;
}

/**
 * Records, in the target, which tables this tool is copying and how far it got: updated by the
 * same statement that inserts each chunk, so after a kill at any moment the row and the data agree.
 */
export async function claimTables(
  client: pg.Client,
  plan: Plan,
  sourceRows: Map<string, number>,
): Promise<Map<string, TableProgressRow>> {
  await client.query("begin");
  try {
    await client.query(`create table if not exists ${PROGRESS_TABLE} (
      table_name text primary key, source_rows bigint not null, rows_copied bigint not null,
      last_key text, done integer not null, updated_at timestamptz not null default now())`);
    const { rows } = await client.query<{
      table_name: string;
      source_rows: string;
      rows_copied: string;
      last_key: string | null;
      done: string;
    }>(`select table_name, source_rows, rows_copied, last_key, done from ${PROGRESS_TABLE}`);
    const out = new Map<string, TableProgressRow>();
    for (const r of rows)
      out.set(r.table_name, {
        sourceRows: Number(r.source_rows),
        rowsCopied: Number(r.rows_copied),
        lastKey: r.last_key,
        done: r.done === "1",
      });
    const occupied: string[] = [];
    const changed: string[] = [];
    for (const t of plan.tables) {
      const n = sourceRows.get(t.name)!;
      const known = out.get(t.name);
      if (known) {
        if (known.sourceRows !== n) changed.push(`${t.name} (${known.sourceRows} rows then, ${n} now)`);
        continue;
      }
      const { rows: any } = await client.query(`select 1 from ${quote(t.name)} limit 1`);
      if (any.length > 0) occupied.push(t.name);
      out.set(t.name, { sourceRows: n, rowsCopied: 0, lastKey: null, done: false });
      await client.query(
        `insert into ${PROGRESS_TABLE} (table_name, source_rows, rows_copied, done) values ($1, $2, 0, 0)`,
        [t.name, n],
      );
    }
    if (occupied.length > 0)
      throw new Refusal(
        `the target already holds rows in ${occupied.join(", ")}, which this tool did not copy: it never merges into a database in use; give it an empty one`,
      );
    if (changed.length > 0)
      throw new Refusal(
        `the source changed since this copy began: ${changed.join(", ")}. Was the server running? Stop it, empty the target database, and start over`,
      );
    await client.query("commit");
    return out;
  } catch (err) {
    await client.query("rollback");
    throw err;
  }
}

export interface CopyOptions {
  chunkRows: number;
  /** Test-only: a pause after each chunk, so a test can kill the process part-way (LIFT_COPY_PAUSE_MS). */
  pauseMs: number;
}

/**
 * Copies a table from where its progress row says, in SQLite key order, one chunk per statement:
 * a multi-row insert (one array parameter per column, `unnest`ed) and the progress update in one
 * data-modifying CTE, atomic without a transaction block. The next chunk is read from SQLite while
 * PostgreSQL runs the current one.
 */
export async function copyTable(
  sqlite: SQLite.Database,
  client: pg.Client,
  table: TablePlan,
  progress: TableProgressRow,
  opts: CopyOptions,
  onRows: (copied: number) => void,
): Promise<void> {
  const keyWidth = table.sourceKey.length;
  // rowid stays bare: a quoted name that is no column would be read as a string literal
  const key = table.sourceKey.map((k) => (k === "rowid" ? k : quote(k))).join(", ");
  const cols = table.columns.map((c) => quote(c.name)).join(", ");
  const from = `select ${key}, ${cols} from ${quote(table.name)}`;
  const first = sqlite.prepare(`${from} order by ${key} limit ?`).raw(true).safeIntegers(true);
  const after = sqlite
    .prepare(
      `${from} where (${key}) > (${table.sourceKey.map(() => "?").join(", ")}) order by ${key} limit ?`,
    )
    .raw(true)
    .safeIntegers(true);
  const read = (lastKey: unknown[] | null) =>
    (lastKey ? after.all(...lastKey, opts.chunkRows) : first.all(opts.chunkRows)) as unknown[][];

  const n = table.columns.length;
  const unnest = table.columns.map((c, i) => `$${i + 1}::${c.pgType}[]`).join(", ");
  const insert = `with chunk as (insert into ${quote(table.name)} (${cols}) select * from unnest(${unnest}))
    update ${PROGRESS_TABLE} set last_key = $${n + 1}, rows_copied = rows_copied + $${n + 2}, updated_at = now()
    where table_name = $${n + 3}`;

  let copied = progress.rowsCopied;
  let rows = read(progress.lastKey === null ? null : decodeKey(progress.lastKey));
  while (rows.length > 0) {
    const lastKey = rows[rows.length - 1]!.slice(0, keyWidth);
    const params = table.columns.map((c, i) =>
      rows.map((r) => {
        try {
          return toPg(r[keyWidth + i], c.cls);
        } catch (err) {
          if (!(err instanceof ValueError)) throw err;
          throw new Refusal(
            `${table.name}.${c.name} at key ${encodeKey(r.slice(0, keyWidth))}: ${err.message}`,
          );
        }
      }),
    );
    const write = client.query(insert, [...params, encodeKey(lastKey), rows.length, table.name]).then(
      (res) => {
        if (res.rowCount !== 1) throw new Error(`${PROGRESS_TABLE} has no row for ${table.name}`);
      },
      (err: Error) => {
        throw new Error(`copying ${table.name} after key ${progress.lastKey ?? "(start)"}: ${err.message}`);
      },
    );
    let next: unknown[][];
    try {
      next = rows.length < opts.chunkRows ? [] : read(lastKey);
    } catch (err) {
      await write.catch(() => {});
      throw err;
    }
    await write;
    progress.lastKey = encodeKey(lastKey);
    copied += rows.length;
    onRows(copied);
    if (opts.pauseMs > 0) await new Promise((r) => setTimeout(r, opts.pauseMs));
    rows = next;
  }
  await client.query(`update ${PROGRESS_TABLE} set done = 1, updated_at = now() where table_name = $1`, [
    table.name,
  ]);
  progress.done = true;
}

/**
 * After the last table: sequences continue after the copied ids (else the next insert collides
 * with a copied row), and the planner gets statistics for tables that were empty when it last
 * looked. Both are idempotent, so a rerun repeats them harmlessly.
 */
export async function finishTarget(client: pg.Client, plan: Plan): Promise<void> {
  for (const t of plan.tables) {
    for (const c of t.serial)
      await client.query(
        `select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${quote(c)}) from ${quote(t.name)}), 0) + 1, false)`,
        [quote(t.name), c],
      );
    await client.query(`analyze ${quote(t.name)}`);
  }
}
