import type SQLite from "better-sqlite3";
import { type RawBuilder, sql } from "kysely";

/** Merges per bucket of `event_visitor_index`: a bucket holds at most this × mergeRows entries. */
const MERGES_PER_BUCKET = 8;
const CHUNK = 200;
const MERGE_SQL = [
  // recent's key order is the index's within one bucket: an append-like sequential insert
  `insert into event_visitor_index (project_id, bucket, visitor_id, ts, seq)
   select project_id, (select bucket from event_index_state), visitor_id, ts, seq from event_visitor_recent
   order by project_id, visitor_id, ts, seq`,
  "delete from event_visitor_recent",
  `update event_index_state set merges = merges + 1, bucket = max(bucket, (merges + 1) / ${MERGES_PER_BUCKET} + 1)`,
];

/**
 * SQLite's per-visitor index of events, log-structured (migration 0301): each commit adds its
 * events to the small `event_visitor_recent`; every `mergeRows` entries they move in key order to
 * the current bucket of `event_visitor_index`. Only the events writer writes these tables.
 */
export class VisitorIndex {
  private one: SQLite.Statement;
  private many: SQLite.Statement;
  private pending: number;
  private mergeStmts: SQLite.Statement[];
  private countRecent: SQLite.Statement;

  constructor(
    sqlite: SQLite.Database,
    private mergeRows: number,
  ) {
    const head = "insert into event_visitor_recent (project_id, visitor_id, ts, seq) values ";
    this.one = sqlite.prepare(`${head}(?,?,?,?)`);
    this.many = sqlite.prepare(head + Array(CHUNK).fill("(?,?,?,?)").join(","));
    // what waits from before a restart counts towards the next merge
    this.countRecent = sqlite.prepare("select count(*) as n from event_visitor_recent").pluck();
    this.pending = this.countRecent.get() as number;
    this.mergeStmts = MERGE_SQL.map((q) => sqlite.prepare(q));
  }

  /**
   * Adds entries for events given as flat column values, `width` per event, with the project,
   * visitor and time at the given offsets; their rows got consecutive keys from `firstSeq`. Runs
   * inside the writer's transaction.
   */
  add(
    values: unknown[],
    width: number,
    firstSeq: number,
    at: { project: number; visitor: number; ts: number },
  ): void {
    const n = values.length / width;
    const params: unknown[] = new Array(Math.min(n, CHUNK) * 4);
    let k = 0;
    let r = 0;
    for (; r + CHUNK <= n; r += CHUNK) {
      k = 0;
      for (let i = r; i < r + CHUNK; i++) {
        const b = i * width;
        params[k++] = values[b + at.project];
        params[k++] = values[b + at.visitor];
        params[k++] = values[b + at.ts];
        params[k++] = firstSeq + i;
      }
      this.many.run(params);
    }
    for (; r < n; r++) {
      const b = r * width;
      this.one.run(values[b + at.project], values[b + at.visitor], values[b + at.ts], firstSeq + r);
    }
    this.pending += n;
  }

  /** Whether enough entries wait in `event_visitor_recent` for a merge. */
  get mergeDue(): boolean {
    return this.pending >= this.mergeRows;
  }

  /**
   * Moves the recent entries into the index, in a transaction of its own. It runs on the event
   * loop: on the helper thread it would hold SQLite's one write lock all the same, and the writer
   * would idle waiting for it (measured: no faster, bench/README.md).
   */
  merge(): void {
    for (const s of this.mergeStmts) s.run();
    this.pending = 0;
  }

  /** The transaction that added entries rolled back: recount what waits. */
  rollback(): void {
    this.pending = this.countRecent.get() as number;
  }
}

/** SQLite: keys (`seq`) of the given visitors' events (recent entries and every bucket of the index). */
export function sqliteVisitorEventSeqs(projectId: string, visitorIds: string[]): RawBuilder<unknown> {
  const visitors = sql.join(visitorIds);
  return sql`select seq from event_visitor_recent where project_id = ${projectId} and visitor_id in (${visitors})
    union all select seq from event_visitor_index where project_id = ${projectId}
    and bucket in (select n from event_index_buckets) and visitor_id in (${visitors})`;
}

/** SQLite: a visitor's latest event time, from column references (no parameters), 0 when none. */
export const sqliteVisitorLastSeen = (projectRef: string, visitorRef: string): string =>
  `max(coalesce((select max(ts) from event_visitor_recent r where r.project_id = ${projectRef} and r.visitor_id = ${visitorRef}), 0),
   coalesce((select max(ts) from event_visitor_index x where x.project_id = ${projectRef}
   and x.bucket in (select n from event_index_buckets) and x.visitor_id = ${visitorRef}), 0))`;
