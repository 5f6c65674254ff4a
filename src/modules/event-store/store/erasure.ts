import { sql } from "kysely";
import { type Trx, isPostgresDb } from "../../../platform/db/index.js";
import { sqliteRecountLastSeen, sqliteVisitorEventSeqs } from "./visitor-lookups.js";
import "../tables.js";

const CHUNK = 400;

/** A deleted event as erasure reports it (`seq`: SQLite's key, for the per-visitor index's tail). */
export interface DeletedEvent {
  id: string;
  seq?: number;
  visitor_id: string;
  ts: number | string;
  is_bot: number;
}

/**
 * While the caller's transaction lasts, no process writes events: on PostgreSQL every process's
 * flush waits at its insert (a lock on `events` that conflicts only with writes); SQLite's one
 * writer is the caller's (the writer's exclusive lane).
 */
export async function holdEventWrites(trx: Trx): Promise<void> {
  if (isPostgresDb(trx)) await sql`lock table events in share row exclusive mode`.execute(trx);
}

/**
 * Deletes the stored events of the given visitors and, for a lead, those sent with its id from any
 * visitor; on SQLite their per-visitor index entries too. Returns what it deleted.
 */
export async function deleteStoredEvents(
  trx: Trx,
  projectId: string,
  person: { visitorIds: string[]; leadId?: string },
): Promise<DeletedEvent[]> {
  const { visitorIds, leadId } = person;
  if (isPostgresDb(trx)) {
    const rows: DeletedEvent[] = [];
    for (let i = 0; i < Math.max(visitorIds.length, 1); i += CHUNK) {
      const chunk = visitorIds.slice(i, i + CHUNK);
      const byLead = i === 0 && leadId !== undefined ? sql`or lead_id = ${leadId}` : sql``;
      const byVisitor = chunk.length > 0 ? sql`visitor_id in (${sql.join(chunk)})` : sql`false`;
      const { rows: deleted } = await sql<DeletedEvent>`delete from events
        where project_id = ${projectId} and (${byVisitor} ${byLead}) returning id, visitor_id, ts, is_bot`.execute(
        trx,
      );
      rows.push(...deleted);
    }
    return rows;
  }
  const found = new Map<number, Required<DeletedEvent>>();
  for (let i = 0; i < visitorIds.length; i += CHUNK) {
    const { rows: mine } = await sql<
      Required<DeletedEvent>
    >`select id, seq, visitor_id, ts, is_bot from events
      where seq in (${sqliteVisitorEventSeqs(projectId, visitorIds.slice(i, i + CHUNK))})
      and project_id = ${projectId}`.execute(trx);
    for (const r of mine) found.set(r.seq, r);
  }
  // Events sent with the lead's id by a visitor linked elsewhere: no index leads there (a scan).
  if (leadId !== undefined) {
    const { rows: sent } = await sql<
      Required<DeletedEvent>
    >`select id, seq, visitor_id, ts, is_bot from events
      where project_id = ${projectId} and lead_id = ${leadId}`.execute(trx);
    for (const r of sent) found.set(r.seq, r);
  }
  const list = [...found.values()];
  for (let i = 0; i < list.length; i += CHUNK) {
    const chunk = list.slice(i, i + CHUNK);
    await sql`delete from events where seq in (${sql.join(chunk.map((r) => r.seq))})`.execute(trx);
    for (const r of chunk)
      await sql`delete from event_visitor_index where project_id = ${projectId}
        and bucket in (select n from event_index_buckets) and visitor_id = ${r.visitor_id}
        and ts = ${r.ts} and seq = ${r.seq}`.execute(trx);
  }
  const touched = [...new Set(list.map((r) => r.visitor_id))];
  for (let i = 0; i < touched.length; i += CHUNK)
    for (const statement of sqliteRecountLastSeen(projectId, touched.slice(i, i + CHUNK)))
      await statement.execute(trx);
  // `seq` is SQLite's rowid: once the newest rows are gone the next insert reuses their keys, so
  // the index's mark of merged rows must not stay above them (the tail is rebuilt from it).
  await sql`update event_index_state
    set merged_seq = min(merged_seq, coalesce((select max(seq) from events), 0))`.execute(trx);
  return list;
}
