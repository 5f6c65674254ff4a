import { readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type SQLite from "better-sqlite3";
import type pg from "pg";
import { type TypeClass, typeClass } from "./values.js";

/** What the user is told instead of a stack trace: the run was refused, nothing was written. */
export class Refusal extends Error {}

export interface Column {
  name: string;
  /** as PostgreSQL's format_type spells it: the array cast of the insert */
  pgType: string;
  cls: TypeClass;
  notNull: boolean;
}

export interface TablePlan {
  name: string;
  /** PostgreSQL's columns in its order: what is copied and hashed */
  columns: Column[];
  /** SQLite's primary key (or rowid): the copy reads in this order and resumes after it */
  sourceKey: string[];
  /** PostgreSQL's primary key (every column when it has none): the checksum's row order */
  orderKey: Column[];
  /** columns fed by a sequence on PostgreSQL, which must continue after the copied values */
  serial: string[];
}

export interface Plan {
  tables: TablePlan[];
  skipped: { name: string; reason: string }[];
}

/** Kysely's bookkeeping: the target's own migrator fills it. */
const MIGRATOR_TABLES = new Set(["kysely_migration", "kysely_migration_lock"]);
export const PROGRESS_TABLE = "lift_copy_progress";

/**
 * Where the two dialects' schemas differ on purpose: the dialect branches of migrations 0301, 0302, 0306,
 * 0310 and 0311. Any other difference means a migration this tool has not been taught about, and the
 * run is refused rather than guessed at.
 */
const SQLITE_ONLY_TABLES: Record<string, string> = {
  event_visitor_index:
    "SQLite's per-visitor event index (0301); PostgreSQL's index events_visitor_ts is built as events are inserted",
  event_index_state: "the SQLite index's merge position (merged_seq, 0302); PostgreSQL has no merges",
  event_visitor_last:
    "SQLite's latest merged event time per visitor (0306), kept by the index's merges; PostgreSQL reads its index",
  segment_message_log:
    "SQLite's log of Segment messageIds (0310): not copied as it is, its keys are carried into segment_message_ids",
};
const POSTGRES_ONLY_TABLES: Record<string, string> = {
  segment_message_ids:
    "PostgreSQL's Segment messageIds (0310), filled from SQLite's log (a retry of a message sent before the move is still a duplicate)",
  segment_public_message_ids:
    "PostgreSQL's Segment messageIds of the public key's namespace (0311), filled from SQLite's log as segment_message_ids",
};
const SQLITE_ONLY_COLUMNS: Record<string, string> = {
  // PostgreSQL keys events, and pages through them, by the time-ordered id the row already has.
  "events.seq": "SQLite's integer key of events (0301)",
};

const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations/", import.meta.url));

/** The migrations this code has, named as Kysely records them (migrate.ts's FolderProvider). */
async function codeMigrations(): Promise<string[]> {
  const files = await readdir(MIGRATIONS_DIR);
  return files
    .filter((f) => /^\d{4}_.*\.(ts|js)$/.test(f) && !f.endsWith(".d.ts"))
    .map((f) => f.replace(/\.(ts|js)$/, ""))
    .sort();
}

/**
 * The source must be at exactly this code's schema: an older file still has tables in the shape
 * a later migration rewrites, and the copy would put them into the new shape unconverted.
 */
export async function checkSourceMigrations(sqlite: SQLite.Database): Promise<void> {
  const has = sqlite
    .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
    .get();
  if (!has) throw new Refusal("the source is not a Lift database (it has no kysely_migration table)");
  const source = (sqlite.prepare("select name from kysely_migration order by name").pluck().all() as string[])
    .slice()
    .sort();
  const code = await codeMigrations();
  const missing = code.filter((m) => !source.includes(m));
  const unknown = source.filter((m) => !code.includes(m));
  if (missing.length === 0 && unknown.length === 0) return;
  const lines = ["the source's migrations differ from this code's:"];
  if (missing.length > 0) {
    lines.push(`  not applied to the source: ${missing.join(", ")}`);
    lines.push(
      "  start the server once on the SQLite file (it migrates at start), stop it, then run this again",
    );
  }
  if (unknown.length > 0)
    lines.push(
      `  applied to the source but unknown here: ${unknown.join(", ")} (run the Lift version that made it)`,
    );
  throw new Refusal(lines.join("\n"));
}

/** An identifier quoted alike for both databases. */
export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The tables to copy, in an order that satisfies PostgreSQL's foreign keys (parents first), and
 * those skipped with the reason. Refuses when the two schemas differ in a way not listed above.
 */
export async function buildPlan(sqlite: SQLite.Database, client: pg.Client): Promise<Plan> {
  const problems: string[] = [];
  const skipped: Plan["skipped"] = [];
  const target = await pgTables(client);
  const source = new Map<string, { columns: { name: string; pk: number }[]; rowid: boolean }>();
  const rows = sqlite
    .prepare(
      "select name, sql from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'",
    )
    .all() as { name: string; sql: string }[];
  for (const { name, sql } of rows) {
    if (MIGRATOR_TABLES.has(name)) continue;
    if (SQLITE_ONLY_TABLES[name]) {
      skipped.push({ name, reason: SQLITE_ONLY_TABLES[name] });
      continue;
    }
    const columns = sqlite.prepare(`pragma table_info(${quote(name)})`).all() as {
      name: string;
      pk: number;
    }[];
    source.set(name, { columns, rowid: !/\bwithout\s+rowid\b/i.test(sql) });
    if (!target.has(name)) problems.push(`table ${name} exists in SQLite only`);
  }
  const tables: TablePlan[] = [];
  for (const [name, t] of target) {
    if (MIGRATOR_TABLES.has(name) || name === PROGRESS_TABLE) continue;
    const s = source.get(name);
    if (!s && POSTGRES_ONLY_TABLES[name]) {
      skipped.push({ name, reason: POSTGRES_ONLY_TABLES[name] });
      continue;
    }
    if (!s) {
      problems.push(`table ${name} exists in PostgreSQL only`);
      continue;
    }
    for (const c of t.columns) {
      if (!c.cls) problems.push(`${name}.${c.name}: PostgreSQL type ${c.pgType} is not supported`);
      if (!s.columns.some((sc) => sc.name === c.name))
        problems.push(`${name}.${c.name} is missing in SQLite`);
    }
    for (const sc of s.columns) {
      const id = `${name}.${sc.name}`;
      if (t.columns.some((c) => c.name === sc.name)) continue;
      if (SQLITE_ONLY_COLUMNS[id]) skipped.push({ name: id, reason: SQLITE_ONLY_COLUMNS[id] });
      else problems.push(`${id} exists in SQLite only`);
    }
    const pk = s.columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const columns = t.columns as Column[];
    tables.push({
      name,
      columns,
      sourceKey: pk.length > 0 ? pk.map((c) => c.name) : ["rowid"],
      orderKey: t.key.length > 0 ? t.key.map((k) => columns.find((c) => c.name === k)!) : columns,
      serial: t.serial,
    });
  }
  if (problems.length > 0)
    throw new Refusal(
      `the SQLite and PostgreSQL schemas differ in ways this tool does not know:\n  ${problems.join("\n  ")}`,
    );
  return { tables: parentsFirst(tables, await foreignKeys(client)), skipped };
}

interface PgTable {
  columns: (Omit<Column, "cls"> & { cls: TypeClass | undefined })[];
  key: string[];
  serial: string[];
}

/** The tables of the target's current schema (what the app's migrations made there). */
async function pgTables(client: pg.Client): Promise<Map<string, PgTable>> {
  const out = new Map<string, PgTable>();
  const { rows } = await client.query<{
    t: string;
    c: string;
    type: string;
    notnull: string;
    seq: string | null;
  }>(
    `select c.relname as t, a.attname as c, format_type(a.atttypid, a.atttypmod) as type,
       a.attnotnull as notnull,
       pg_get_serial_sequence(quote_ident(n.nspname) || '.' || quote_ident(c.relname), a.attname) as seq
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
     where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
     order by c.relname, a.attnum`,
  );
  for (const r of rows) {
    const t = out.get(r.t) ?? { columns: [], key: [], serial: [] };
    out.set(r.t, t);
    t.columns.push({ name: r.c, pgType: r.type, cls: typeClass(r.type), notNull: r.notnull === "t" });
    if (r.seq) t.serial.push(r.c);
  }
  const keys = await client.query<{ t: string; c: string }>(
    `select c.relname as t, a.attname as c
     from pg_constraint con join pg_class c on c.oid = con.conrelid
     join pg_namespace n on n.oid = c.relnamespace
     cross join lateral unnest(con.conkey) with ordinality as k(attnum, ord)
     join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
     where con.contype = 'p' and n.nspname = current_schema() order by c.relname, k.ord`,
  );
  for (const r of keys.rows) out.get(r.t)?.key.push(r.c);
  return out;
}

async function foreignKeys(client: pg.Client): Promise<{ child: string; parent: string }[]> {
  const { rows } = await client.query<{ child: string; parent: string }>(
    `select c.relname as child, p.relname as parent
     from pg_constraint con join pg_class c on c.oid = con.conrelid join pg_class p on p.oid = con.confrelid
     join pg_namespace n on n.oid = c.relnamespace
     where con.contype = 'f' and n.nspname = current_schema()`,
  );
  return rows;
}

/** Topological order by foreign keys, alphabetical among equals, so every run copies alike. */
function parentsFirst(tables: TablePlan[], fks: { child: string; parent: string }[]): TablePlan[] {
  const pending = new Map(tables.map((t) => [t.name, t]));
  const out: TablePlan[] = [];
  while (pending.size > 0) {
    const ready = [...pending.keys()]
      .filter((name) => !fks.some((f) => f.child === name && f.parent !== name && pending.has(f.parent)))
      .sort();
    if (ready.length === 0)
      throw new Refusal(`foreign keys form a cycle among: ${[...pending.keys()].join(", ")}`);
    for (const name of ready) {
      out.push(pending.get(name)!);
      pending.delete(name);
    }
  }
  return out;
}
