import { type RawBuilder, sql } from "kysely";

/**
 * SQL over SQLite's per-visitor index (visitor-index.ts) for its readers: a visitor's events are
 * the tail's entries (the `event_visitor_tail` function) and the published buckets'; its latest
 * event time is the tail's and `event_visitor_last`'s.
 */

/** SQLite: keys (`seq`) of the given visitors' events (the tail and every published bucket). */
export function sqliteVisitorEventSeqs(projectId: string, visitorIds: string[]): RawBuilder<unknown> {
  const visitors = sql.join(visitorIds);
  return sql`select seq from event_visitor_tail(${projectId}, ${JSON.stringify(visitorIds)})
    union all select seq from event_visitor_index where project_id = ${projectId}
    and bucket in (select n from event_index_buckets) and visitor_id in (${visitors})`;
}

/** SQLite: a visitor's latest event time, from column references (no parameters), 0 when none. */
export const sqliteVisitorLastSeen = (projectRef: string, visitorRef: string): string =>
  `max(coalesce((select max(ts) from event_visitor_tail(${projectRef}, json_array(${visitorRef}))), 0),
   coalesce((select ts from event_visitor_last x where x.project_id = ${projectRef}
   and x.visitor_id = ${visitorRef}), 0))`;

/**
 * SQLite, after an erasure deleted some of these visitors' events and index entries: their latest
 * merged event time again, from what remains in the buckets.
 */
export function sqliteRecountLastSeen(projectId: string, visitorIds: string[]): RawBuilder<unknown>[] {
  const visitors = sql.join(visitorIds);
  return [
    sql`delete from event_visitor_last where project_id = ${projectId} and visitor_id in (${visitors})`,
    sql`insert into event_visitor_last (project_id, visitor_id, ts)
      select project_id, visitor_id, max(ts) from event_visitor_index where project_id = ${projectId}
      and bucket in (select n from event_index_buckets) and visitor_id in (${visitors})
      group by project_id, visitor_id`,
  ];
}
