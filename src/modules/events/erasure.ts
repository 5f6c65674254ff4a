import { sql } from "kysely";
import { type Trx, isPostgresDb } from "../../platform/db/index.js";
import { sqliteVisitorEventSeqs } from "./store/visitor-index.js";
import type { ForgetVisitors } from "./writer.js";
import "./tables.js";

const CHUNK = 400;
const DAY_MS = 86_400_000;

/** What deleting a person's events removed: how many, and the UTC days of the non-bot ones. */
export interface ErasedEvents {
  events: number;
  /** ids of the deleted events (other modules keep records keyed by them) */
  ids: string[];
  days: number[];
}

interface StoredKey {
  id: string;
  seq?: number;
  visitor_id: string;
  ts: number | string;
  is_bot: number;
}

/**
 * Deletes the events of the given visitors (and, for a lead, those sent with its id from any
 * visitor), their session state and, on SQLite, their per-visitor index entries. Runs inside the
 * writer's exclusive transaction (`forget` drops the in-memory state after it commits).
 */
export async function deleteEventsOf(
  trx: Trx,
  projectId: string,
  person: { visitorIds: string[]; leadId?: string },
  forget: ForgetVisitors,
): Promise<ErasedEvents> {
  const { visitorIds, leadId } = person;
  const postgres = isPostgresDb(trx);
  const rows: StoredKey[] = [];
  if (postgres) {
    for (let i = 0; i < Math.max(visitorIds.length, 1); i += CHUNK) {
      const chunk = visitorIds.slice(i, i + CHUNK);
      const byLead = i === 0 && leadId !== undefined ? sql`or lead_id = ${leadId}` : sql``;
      const byVisitor = chunk.length > 0 ? sql`visitor_id in (${sql.join(chunk)})` : sql`false`;
      const { rows: deleted } = await sql<StoredKey>`delete from events
        where project_id = ${projectId} and (${byVisitor} ${byLead}) returning id, visitor_id, ts, is_bot`.execute(
        trx,
      );
      rows.push(...deleted);
    }
  } else {
    const found = new Map<number, StoredKey>();
    for (let i = 0; i < visitorIds.length; i += CHUNK) {
      const { rows: mine } = await sql<Required<StoredKey>>`select id, seq, visitor_id, ts, is_bot from events
        where seq in (${sqliteVisitorEventSeqs(projectId, visitorIds.slice(i, i + CHUNK))})
        and project_id = ${projectId}`.execute(trx);
      for (const r of mine) found.set(r.seq, r);
    }
    // Events sent with the lead's id by a visitor linked elsewhere: no index leads there (a scan).
    if (leadId !== undefined) {
      const { rows: sent } = await sql<Required<StoredKey>>`select id, seq, visitor_id, ts, is_bot from events
        where project_id = ${projectId} and lead_id = ${leadId}`.execute(trx);
      for (const r of sent) found.set(r.seq, r);
    }
    const list = [...found.values()] as Required<StoredKey>[];
    for (let i = 0; i < list.length; i += CHUNK) {
      const chunk = list.slice(i, i + CHUNK);
      await sql`delete from events where seq in (${sql.join(chunk.map((r) => r.seq))})`.execute(trx);
      for (const r of chunk)
        await sql`delete from event_visitor_index where project_id = ${projectId}
          and bucket in (select n from event_index_buckets) and visitor_id = ${r.visitor_id}
          and ts = ${r.ts} and seq = ${r.seq}`.execute(trx);
    }
    // `seq` is SQLite's rowid: once the newest rows are gone the next insert reuses their keys, so
    // the index's mark of merged rows must not stay above them (the tail is rebuilt from it).
    await sql`update event_index_state
      set merged_seq = min(merged_seq, coalesce((select max(seq) from events), 0))`.execute(trx);
    rows.push(...list);
  }
  for (let i = 0; i < visitorIds.length; i += CHUNK)
    await trx
      .deleteFrom("event_visitors")
      .where("project_id", "=", projectId)
      .where("visitor_id", "in", visitorIds.slice(i, i + CHUNK))
      .execute();
  forget(
    projectId,
    [...new Set([...visitorIds, ...rows.map((r) => r.visitor_id)])],
    rows.flatMap((r) => (r.seq === undefined ? [] : [r.seq])),
  );
  const days = new Set<number>();
  for (const r of rows) if (!Number(r.is_bot)) days.add(Math.floor(Number(r.ts) / DAY_MS));
  return { events: rows.length, ids: rows.map((r) => r.id), days: [...days].sort((a, b) => a - b) };
}
