import { sql } from "kysely";
import { type DbOrTrx, isPostgresDb } from "../../../platform/db/index.js";
import type { EventTable } from "../tables.js";
import "../tables.js";

/**
 * The committed events in the order a copy of them (the analytics engine) takes them, a page at a
 * time after a cursor, every project's.
 *
 * - SQLite: one writer gives `seq` in commit order, so the cursor is the last `seq` taken and a
 *   page is exactly what follows.
 * - PostgreSQL: the cursor is the last (receipt time, id) taken, in that order. Several processes
 *   commit, and a row's receipt time is taken before its transaction commits, so a row can become
 *   visible behind the cursor: `lateEventIds` lists the ids received in the `LATE_MS` before it,
 *   for the copy to fetch those it lacks (`eventsByIds`). A flush committing later than that after
 *   its receipt would be missed (flushes take milliseconds; a rebuild repairs anything).
 */
export interface FeedCursor {
  /** SQLite: the last `seq` taken (0 before any) */
  seq?: number;
  /** PostgreSQL: the receipt time and id of the last row taken */
  receivedAt?: number;
  id?: string;
}

export const LATE_MS = 5_000;

export async function committedEventsAfter(
  db: DbOrTrx,
  cursor: FeedCursor,
  limit: number,
): Promise<{ rows: EventTable[]; next: FeedCursor }> {
  if (!isPostgresDb(db)) {
    const after = cursor.seq ?? 0;
    const { rows } = await sql<EventTable & { seq: number }>`select seq, * from events where seq > ${after}
      order by seq limit ${limit}`.execute(db);
    const last = rows[rows.length - 1];
    return { rows, next: { seq: last ? Number(last.seq) : after } };
  }
  const at = cursor.receivedAt ?? 0;
  const id = cursor.id ?? "";
  const { rows } = await sql<EventTable>`select * from events
    where received_at >= ${at} and (received_at > ${at} or id > ${id})
    order by received_at, id limit ${limit}`.execute(db);
  const last = rows[rows.length - 1];
  return { rows, next: last ? { receivedAt: Number(last.received_at), id: last.id } : cursor };
}

/**
 * PostgreSQL: ids received in the `LATE_MS` up to the cursor (rows that may have committed behind
 * it). Only rows at or before the cursor in the feed's order: a row of the cursor's millisecond
 * with a greater id is the next page's, and taking it here too would copy it twice.
 */
export async function lateEventIds(db: DbOrTrx, cursor: FeedCursor): Promise<string[]> {
  if (!isPostgresDb(db) || cursor.receivedAt === undefined) return [];
  const at = cursor.receivedAt;
  const { rows } = await sql<{ id: string }>`select id from events
    where received_at >= ${at - LATE_MS} and received_at <= ${at}
      and (received_at < ${at} or id <= ${cursor.id ?? ""})`.execute(db);
  return rows.map((r) => r.id);
}

/** The given events (any project's), for a copy that lacks them. */
export async function eventsByIds(db: DbOrTrx, ids: string[]): Promise<EventTable[]> {
  const out: EventTable[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const { rows } =
      await sql<EventTable>`select * from events where id in (${sql.join(ids.slice(i, i + 500))})`.execute(
        db,
      );
    out.push(...rows);
  }
  return out;
}
