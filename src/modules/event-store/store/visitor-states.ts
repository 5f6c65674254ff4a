import { sql } from "kysely";
import type SQLite from "better-sqlite3";
import { type DbOrTrx, type Trx, isPostgresDb } from "../../../platform/db/index.js";
import type { EventVisitorTable } from "../tables.js";
import type { VisitorIndex } from "./visitor-index.js";
import { sqliteVisitorLastSeen } from "./visitor-lookups.js";

/** A visitor's session and first-touch state: its `event_visitors` row without the key. */
export type VisitorState = Omit<EventVisitorTable, "project_id" | "visitor_id">;

/** A stored state with the time of the visitor's latest stored event (either driver's numbers). */
export type StoredVisitorState = VisitorState & { events_last_seen: number | string | null };

const STATE_COLUMNS = [
  "first_seen",
  "first_channel",
  "first_source",
  "first_landing_page",
  "session_id",
  "session_started",
  "session_channel",
  "session_source",
  "session_landing_page",
  "last_seen",
] as const;
const SESSION_COLUMNS = STATE_COLUMNS.filter((c) => !c.startsWith("first_"));

/**
 * One visitor's state read and written at once, on the events writer's connection (SQLite: the
 * same connection, so the same transaction, as the writer's Kysely transaction).
 */
export interface LocalVisitorStates {
  get(projectId: string, visitorId: string): StoredVisitorState | undefined;
  /** the first touch only when the row is new, the session columns always */
  put(projectId: string, visitorId: string, st: VisitorState): void;
}

/**
 * SQLite, where one process owns the file: a prepared statement on the raw connection, so the
 * session tracker looks each visitor up as it meets it (on PostgreSQL a flush's visitors are loaded
 * ahead, `visitorsWithLastSeen`, and several processes may share the states). The visitor's latest
 * event is the later of its merged time (`event_visitor_last`, joined to its row) and the newest
 * entry of the per-visitor index's tail, read from the writer's own index in memory.
 */
export function localVisitorStates(
  sqlite: SQLite.Database,
  index: Pick<VisitorIndex, "tailLastSeen">,
): LocalVisitorStates {
  const select = sqlite.prepare(
    `select ${STATE_COLUMNS.map((c) => `v.${c}`).join(",")}, coalesce(x.ts, 0) as events_last_seen
     from event_visitors v left join event_visitor_last x
       on x.project_id = v.project_id and x.visitor_id = v.visitor_id
     where v.project_id = ? and v.visitor_id = ?`,
  );
  const upsert = sqlite.prepare(
    `insert into event_visitors (project_id, visitor_id, ${STATE_COLUMNS.join(",")}) values (${Array(
      STATE_COLUMNS.length + 2,
    )
      .fill("?")
      .join(
        ",",
      )}) on conflict (project_id, visitor_id) do update set ${SESSION_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ")}`,
  );
  return {
    get: (projectId, visitorId) => {
      const row = select.get(projectId, visitorId) as StoredVisitorState | undefined;
      if (row)
        row.events_last_seen = Math.max(
          Number(row.events_last_seen),
          index.tailLastSeen(projectId, visitorId),
        );
      return row;
    },
    put: (projectId, visitorId, st) => {
      upsert.run(projectId, visitorId, ...STATE_COLUMNS.map((c) => st[c]));
    },
  };
}

/**
 * Visitor rows with the time of their latest stored event (`events_last_seen`): the truth after a
 * restart, when the in-memory session state is gone.
 */
export function visitorsWithLastSeen(db: DbOrTrx, projectId: string, visitorIds: string[]) {
  const lastSeen = isPostgresDb(db)
    ? "(select max(e.ts) from events e where e.project_id = v.project_id and e.visitor_id = v.visitor_id)"
    : sqliteVisitorLastSeen("v.project_id", "v.visitor_id");
  return db
    .selectFrom("event_visitors as v")
    .selectAll("v")
    .select(sql<number | string | null>`${sql.raw(lastSeen)}`.as("events_last_seen"))
    .where("v.project_id", "=", projectId)
    .where("v.visitor_id", "in", visitorIds);
}

/**
 * Writes visitor states (PostgreSQL): the first touch only when the row is new, the session
 * columns always. A visitor listed twice (its session restarted twice in one flush): the last wins.
 */
export async function upsertVisitorStates(
  trx: Trx,
  states: { projectId: string; visitorId: string; st: VisitorState }[],
): Promise<void> {
  const latest = new Map<string, EventVisitorTable>();
  for (const { projectId, visitorId, st } of states) {
    const row: EventVisitorTable = { project_id: projectId, visitor_id: visitorId } as EventVisitorTable;
    for (const c of STATE_COLUMNS) (row as unknown as Record<string, unknown>)[c] = st[c];
    latest.set(`${projectId}\u0000${visitorId}`, row);
  }
  // In key order: concurrent flushes of two processes lock the rows in one order.
  const rows = [...latest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  for (let i = 0; i < rows.length; i += 1000) {
    await trx
      .insertInto("event_visitors")
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) =>
        oc
          .columns(["project_id", "visitor_id"])
          .doUpdateSet((eb) => ({
            session_id: eb.ref("excluded.session_id"),
            session_started: eb.ref("excluded.session_started"),
            session_channel: eb.ref("excluded.session_channel"),
            session_source: eb.ref("excluded.session_source"),
            session_landing_page: eb.ref("excluded.session_landing_page"),
            last_seen: eb.ref("excluded.last_seen"),
          }))
          // Two processes' flushes may commit in the other order than they decided (shared
          // sessions): the row keeps the newer session, never goes back to an older one.
          .where("event_visitors.session_started", "<=", (eb) => eb.ref("excluded.session_started")),
      )
      .execute();
  }
}
