import { type RawBuilder, sql } from "kysely";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import { type DbOrTrx, isPostgresDb } from "../../../platform/db/index.js";
import type { EventTable } from "../tables.js";
import "../tables.js";

export const EVENT_PAGE_ROWS = 2000;

/** [from, to) in epoch ms. */
export interface ExportRange {
  from: number;
  to: number;
}

/**
 * Rows of `events` matching `where`, in storage order, one page at a time: each page is its own
 * short read (keyset on the table's key: `seq` on SQLite, the time-ordered `id` on PostgreSQL), so
 * memory stays one page however many rows match and no read transaction stays open. Each row
 * carries its key as `k`.
 */
async function* keysetPages<R>(
  db: DbOrTrx,
  columns: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  pageRows: number,
  /** rows with an event time from here on: storage before the bound (`firstKeyFor`) is skipped */
  eventsFrom?: number,
): AsyncGenerator<(R & { k: string | number })[]> {
  const postgres = isPostgresDb(db);
  const key = sql.ref(postgres ? "id" : "seq");
  let after: string | number =
    eventsFrom === undefined ? (postgres ? "" : 0) : await keyBefore(db, eventsFrom - TIME_BOUND_MS);
  for (;;) {
    const { rows } = await sql<R & { k: string | number }>`select ${key} as k, ${columns} from events
      where ${key} > ${after} and ${where} order by ${key} limit ${pageRows}`.execute(db);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]!.k;
  }
}

/**
 * An event's time is at most a day after its arrival (events/validate.ts: "now + 1 day"), and storage
 * order is arrival order: the writer gives each request a receipt time that never goes back
 * (../writer.ts `receivedNow`), keys in commit order on SQLite, and time-ordered ids from that receipt
 * time on PostgreSQL. So no row stored before the first one received at `from - 1 day` has an
 * event time from `from` on. One more day of margin covers ids from other processes' clocks.
 */
const TIME_BOUND_MS = 2 * 86_400_000;

/**
 * The keyset start (exclusive) for rows received from `since` on: a binary search over `seq` on
 * SQLite (a rowid seek per probe; receipt times rise with `seq`), the id of that time's prefix on
 * PostgreSQL. Rows before it are not read.
 */
async function keyBefore(db: DbOrTrx, since: number): Promise<string | number> {
  if (isPostgresDb(db)) return `ev_${Math.max(0, since).toString(36).padStart(9, "0")}`;
  const probe = async (seq: number) =>
    (
      await sql<{ seq: number; received_at: number }>`select seq, received_at from events
        where seq >= ${seq} order by seq limit 1`.execute(db)
    ).rows[0];
  const last = (await sql<{ seq: number | null }>`select max(seq) as seq from events`.execute(db)).rows[0]
    ?.seq;
  if (last === null || last === undefined) return 0;
  // The first row received at `since` or later lies in (lo, hi].
  let lo = 0;
  let hi = Number(last) + 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const row = await probe(mid);
    if (!row || Number(row.received_at) >= since) hi = mid;
    else lo = Number(row.seq);
  }
  return lo;
}

/** A project's events in [from, to), every column, in storage order, page by page (the export). */
export function eventPages(
  db: DbOrTrx,
  project: ProjectRef,
  range: ExportRange,
  opts: { pageRows?: number; where?: RawBuilder<boolean> } = {},
): AsyncGenerator<EventTable[]> {
  return keysetPages<EventTable>(
    db,
    sql`*`,
    sql`project_id = ${project.id} and ts >= ${range.from} and ts < ${range.to}${opts.where ? sql` and ${opts.where}` : sql``}`,
    opts.pageRows ?? EVENT_PAGE_ROWS,
    range.from,
  );
}

/**
 * A project's non-bot events that have a visitor, in [from, to), page by page, with what visitor
 * counts are built from (rebuilding sketches after an erasure).
 */
export function visitorEventPages(
  db: DbOrTrx,
  projectId: string,
  range: ExportRange,
): AsyncGenerator<
  { visitor_id: string; channel: string; type: string; ts: number | string; is_server: number }[]
> {
  return keysetPages(
    db,
    sql`visitor_id, channel, type, ts, is_server`,
    sql`project_id = ${projectId} and ts >= ${range.from} and ts < ${range.to} and is_bot = 0 and visitor_id <> ''`,
    20_000,
    range.from,
  );
}

/**
 * A project's non-bot events in [from, to) that satisfy `where` (a caller's filter, values bound),
 * page by page in storage order, with the given columns (report filters, cohorts, paths).
 */
export function eventRowPages<R>(
  db: DbOrTrx,
  project: ProjectRef,
  range: ExportRange,
  columns: RawBuilder<unknown>,
  where: RawBuilder<boolean> | null,
  pageRows = 20_000,
): AsyncGenerator<(R & { k: string | number })[]> {
  return keysetPages<R>(
    db,
    columns,
    sql`project_id = ${project.id} and ts >= ${range.from} and ts < ${range.to} and is_bot = 0${where ? sql` and ${where}` : sql``}`,
    pageRows,
    range.from,
  );
}

/** Rows of the newest stored events this bounded read looks at (a sample for pickers). */
const LATEST_WINDOW_ROWS = 200_000;

/**
 * The project's newest non-bot events (at most `limit`), among the last LATEST_WINDOW_ROWS stored
 * on SQLite or those received in the last 30 days on PostgreSQL: a bounded sample of what is sent.
 */
export async function latestEvents(
  db: DbOrTrx,
  project: ProjectRef,
  opts: { type?: string; limit: number },
): Promise<{ type: string; url: string; data: string }[]> {
  const type = opts.type === undefined ? sql`` : sql` and type = ${opts.type}`;
  if (isPostgresDb(db)) {
    const since = Date.now() - 30 * 86_400_000;
    const { rows } = await sql<{ type: string; url: string; data: string }>`select type, url, data from events
      where project_id = ${project.id} and received_at >= ${since} and id >= ${`ev_${since.toString(36).padStart(9, "0")}`}
      and is_bot = 0${type} order by id desc limit ${opts.limit}`.execute(db);
    return rows;
  }
  const { rows } = await sql<{ type: string; url: string; data: string }>`select type, url, data from events
    where seq > coalesce((select max(seq) from events), 0) - ${LATEST_WINDOW_ROWS}
    and project_id = ${project.id} and is_bot = 0${type} order by seq desc limit ${opts.limit}`.execute(db);
  return rows;
}
