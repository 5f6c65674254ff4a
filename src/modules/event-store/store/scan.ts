import { sql } from "kysely";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import { type DbOrTrx, isPostgresDb } from "../../../platform/db/index.js";
import "../tables.js";

/**
 * A resumable scan of a project's stored events, for jobs that recount something from history: one
 * page per call, from a cursor the job keeps (text), in storage order. Each page reads a bounded
 * stretch of the table — at most SQLITE_SPAN rows on SQLite, one day of receipt time on PostgreSQL
 * — so a page of a rare event type never becomes a scan of the whole table in one statement.
 * The scan ends at what was stored when it reaches the end; events stored after that are the
 * pipeline's (it already applies the current configuration to them).
 */

/** An event row as a recount reads it. */
export interface ScannedEvent {
  id: string;
  visitor_id: string;
  type: string;
  url: string;
  /** JSON object */
  data: string;
  ts: number;
  channel: string;
  received_at: number;
}

export interface ScanPage {
  rows: ScannedEvent[];
  /** the cursor after this page */
  next: string;
  /** the scan reached the end of the stored events */
  end: boolean;
  /** share of the stored events behind `next`, 0–1 */
  progress: number;
}

const SQLITE_SPAN = 20_000;
const POSTGRES_SPAN_MS = 86_400_000;
/** Ids carry their process's clock: a little past now still counts as stored. */
const CLOCK_MARGIN_MS = 60_000;
const COLUMNS = sql`id, visitor_id, type, url, data, ts, channel, received_at`;

const idAt = (ms: number) => `ev_${Math.max(0, ms).toString(36).padStart(9, "0")}`;
/** The receipt time in a PostgreSQL event id (`ev_<ms base36, 9>…`); 0 for an id not of that shape. */
const timeOfId = (id: string) => {
  const ms = Number.parseInt(id.slice(3, 12), 36);
  return Number.isFinite(ms) ? ms : 0;
};

/**
 * The project's non-bot events of `types` after `cursor` (null: from the start), at most
 * `pageRows` of them.
 */
export async function eventTypeScanPage(
  db: DbOrTrx,
  project: ProjectRef,
  cursor: string | null,
  types: string[],
  pageRows: number,
): Promise<ScanPage> {
  const typeIn = types.length > 0 ? sql`type in (${sql.join(types)})` : sql`1 = 0`;
  if (isPostgresDb(db)) {
    const first = (await sql<{ id: string | null }>`select min(id) as id from events`.execute(db)).rows[0]
      ?.id;
    if (!first) return { rows: [], next: cursor ?? "", end: true, progress: 1 };
    const after = cursor ?? "";
    const from = cursor ? timeOfId(cursor) : timeOfId(first);
    const bound = from + POSTGRES_SPAN_MS;
    const { rows } = await sql<ScannedEvent>`select ${COLUMNS} from events
      where id > ${after} and id < ${idAt(bound)}
        and received_at >= ${from - POSTGRES_SPAN_MS} and received_at < ${bound + POSTGRES_SPAN_MS}
        and project_id = ${project.id} and is_bot = 0 and ${typeIn}
      order by id limit ${pageRows}`.execute(db);
    const full = rows.length === pageRows;
    const next = full ? rows[rows.length - 1]!.id : idAt(bound);
    const now = Date.now();
    const start = timeOfId(first);
    return {
      rows,
      next,
      end: !full && bound > now + CLOCK_MARGIN_MS,
      progress: now > start ? Math.min(1, (timeOfId(next) - start) / (now - start)) : 1,
    };
  }
  const last = Number(
    (await sql<{ seq: number | null }>`select max(seq) as seq from events`.execute(db)).rows[0]?.seq ?? 0,
  );
  const after = cursor === null ? 0 : Number(cursor);
  const upTo = Math.min(after + SQLITE_SPAN, last);
  const { rows } = await sql<ScannedEvent & { seq: number }>`select seq, ${COLUMNS} from events
    where seq > ${after} and seq <= ${upTo} and project_id = ${project.id} and is_bot = 0 and ${typeIn}
    order by seq limit ${pageRows}`.execute(db);
  const full = rows.length === pageRows;
  const next = full ? Number(rows[rows.length - 1]!.seq) : upTo;
  return {
    rows,
    next: String(next),
    end: !full && upTo >= last,
    progress: last > 0 ? Math.min(1, next / last) : 1,
  };
}

/**
 * Which of these events are still stored, locked until the caller's transaction ends (PostgreSQL:
 * `FOR SHARE`, so an erasure deleting one waits, then finds what the caller wrote about it).
 * SQLite has one writer: what the caller's transaction read is still there.
 */
export async function lockStoredEvents(
  db: DbOrTrx,
  rows: { id: string; received_at: number }[],
): Promise<Set<string>> {
  if (!isPostgresDb(db) || rows.length === 0) return new Set(rows.map((r) => r.id));
  const keys = sql.join(rows.map((r) => sql`(${r.id}, ${Number(r.received_at)}::bigint)`));
  const { rows: kept } = await sql<{ id: string }>`select id from events
    where (id, received_at) in (${keys}) for share`.execute(db);
  return new Set(kept.map((r) => r.id));
}
