import { createHash } from "node:crypto";
import type SQLite from "better-sqlite3";
import type pg from "pg";
import { type Column, type Plan, type TablePlan, quote } from "./schema.js";
import { canonicalPg, canonicalSqlite } from "./values.js";

export interface TableCheck {
  name: string;
  sqliteRows: number;
  pgRows: number;
  sqliteSha: string;
  pgSha: string;
  /** where the sides first part, in key order: the row's position and each side's key */
  firstDifference?: string;
  ok: boolean;
}

const FETCH_ROWS = 5000;

/**
 * Counts and a SHA-256 per side over the table's rows in PostgreSQL's primary-key order, each row a
 * canonical JSON array (values.ts). Both sides order by raw bytes (SQLite's BINARY collation,
 * PostgreSQL's "C"), whatever the target database's collation, so the orders agree. The two
 * streams are read in step, which also finds the first row where they differ.
 * Call inside a read transaction on each side, so every table is read at one moment.
 */
export async function verifyTable(
  sqlite: SQLite.Database,
  client: pg.Client,
  table: TablePlan,
  onRows: (rows: number) => void,
): Promise<TableCheck> {
  const cols = table.columns.map((c) => quote(c.name)).join(", ");
  const sqliteOrder = table.orderKey.map((c) => quote(c.name)).join(", ");
  const pgOrder = table.orderKey.map(pgOrderTerm).join(", ");
  const it = sqlite
    .prepare(`select ${cols} from ${quote(table.name)} order by ${sqliteOrder}`)
    .raw(true)
    .safeIntegers(true)
    .iterate() as IterableIterator<unknown[]>;
  const keyAt = table.orderKey.map((k) => table.columns.indexOf(k));
  const sqliteValues = (r: unknown[]) => r.map((v, i) => canonicalSqlite(v, table.columns[i]!.cls));
  const pgValues = (r: (string | null)[]) => r.map((v, i) => canonicalPg(v, table.columns[i]!.cls));
  const keyOf = (values: string[] | undefined) =>
    values ? `[${keyAt.map((i) => values[i]).join(",")}]` : "(none: the other side has fewer rows)";
  const sHash = createHash("sha256");
  const pHash = createHash("sha256");
  let sRows = 0;
  let pRows = 0;
  let firstDifference: string | undefined;
  /** hashes one row of each side (either may have run out) and notes the first pair that differs */
  const step = (s: string[] | undefined, p: string[] | undefined) => {
    const sLine = s && `[${s.join(",")}]\n`;
    const pLine = p && `[${p.join(",")}]\n`;
    if (sLine !== undefined) {
      sHash.update(sLine);
      sRows++;
    }
    if (pLine !== undefined) {
      pHash.update(pLine);
      pRows++;
    }
    if (firstDifference === undefined && sLine !== pLine)
      firstDifference = `row ${Math.max(sRows, pRows)}: SQLite key ${keyOf(s)}, PostgreSQL key ${keyOf(p)}`;
  };
  const cursor = `lift_verify_${table.name}`;
  await client.query(`declare ${quote(cursor)} no scroll cursor for
    select ${cols} from ${quote(table.name)} order by ${pgOrder}`);
  try {
    for (;;) {
      const { rows } = await client.query<(string | null)[]>({
        text: `fetch ${FETCH_ROWS} from ${quote(cursor)}`,
        rowMode: "array",
      });
      for (const r of rows) {
        const next = it.next();
        step(next.done ? undefined : sqliteValues(next.value), pgValues(r));
      }
      onRows(pRows);
      if (rows.length < FETCH_ROWS) break;
    }
    for (const r of it) step(sqliteValues(r), undefined);
  } finally {
    it.return?.();
    await client.query(`close ${quote(cursor)}`);
  }
  const sqliteSha = sHash.digest("hex");
  const pgSha = pHash.digest("hex");
  const ok = sRows === pRows && sqliteSha === pgSha;
  return { name: table.name, sqliteRows: sRows, pgRows: pRows, sqliteSha, pgSha, firstDifference, ok };
}

/** Byte order for text (the index's collation may differ, which costs PostgreSQL a sort). */
function pgOrderTerm(c: Column): string {
  const collate = c.cls === "text" ? ' collate "C"' : "";
  // SQLite puts nulls first in ascending order, PostgreSQL last by default
  return `${quote(c.name)}${collate}${c.notNull ? "" : " nulls first"}`;
}

/** The table printed at the end (stdout), then what was skipped and why. */
export function formatReport(checks: TableCheck[], plan: Plan): string {
  const head = ["table", "sqlite rows", "postgres rows", "sqlite sha-256", "postgres sha-256", "result"];
  const sorted = [...checks].sort((a, b) => (a.name < b.name ? -1 : 1));
  const body = sorted.map((c) => [
    c.name,
    String(c.sqliteRows),
    String(c.pgRows),
    c.sqliteSha.slice(0, 16),
    c.pgSha.slice(0, 16),
    c.ok ? "ok" : "MISMATCH",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r.map((v, i) => (i === 1 || i === 2 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join("  ");
  const lines = [fmt(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(fmt)];
  for (const c of sorted)
    if (c.firstDifference) lines.push(`${c.name}: first difference at ${c.firstDifference}`);
  if (plan.skipped.length > 0) {
    lines.push("", "not copied (no PostgreSQL counterpart):");
    for (const s of plan.skipped) lines.push(`  ${s.name}: ${s.reason}`);
  }
  const bad = checks.filter((c) => !c.ok).map((c) => c.name);
  lines.push(
    "",
    bad.length === 0
      ? `verified: ${checks.length} tables, ${checks.reduce((n, c) => n + c.sqliteRows, 0)} rows, counts and checksums equal`
      : `MISMATCH in ${bad.length} table(s): ${bad.join(", ")}`,
  );
  return `${lines.join("\n")}\n`;
}
