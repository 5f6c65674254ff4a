import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import { type DbOrTrx, type Trx, isPostgresDb } from "../../platform/db/index.js";
import { type Channel, deriveAcquisition } from "./channel.js";
import { timeOrderedId } from "./ids.js";
import { sqliteVisitorLastSeen } from "./store/visitor-index.js";
import type { EventVisitorTable } from "./tables.js";

/** 30 minutes of inactivity end a session (GA4, Plausible). */
export const SESSION_GAP_MS = 30 * 60_000;
const LOAD_CHUNK = 500;
const TOUCH_EVERY = 16;
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

export type VisitorState = Omit<EventVisitorTable, "project_id" | "visitor_id">;

/** Numbers from either driver; last seen is the later of the row's and the events'. */
export function withLastSeen(st: VisitorState & { events_last_seen: number | string | null }): VisitorState {
  const { events_last_seen, ...rest } = st;
  return {
    ...rest,
    first_seen: Number(rest.first_seen),
    session_started: Number(rest.session_started),
    last_seen: Math.max(Number(rest.last_seen), Number(events_last_seen ?? 0)),
  };
}

export interface SessionInfo {
  sessionId: string;
  channel: Channel;
  source: string | null;
  /** this event started the session: its url, referrer and User-Agent are the session's */
  started: boolean;
}

/**
 * The session rule for one event of a visitor whose state is `st` (undefined: never seen): the
 * same session within 30 minutes of its last event (either side), else a new one. Changes `st` in
 * place; a new visitor's state is returned as `state`. `persist`: the session (re)started, so the
 * state row must be written (the row changes only then; the last event time comes from events).
 */
export function applyEvent(
  st: VisitorState | undefined,
  ts: number,
  url: string,
  referrer: string | null,
): { info: SessionInfo; state: VisitorState; persist: boolean } {
  if (st && ts <= st.last_seen + SESSION_GAP_MS && ts >= st.session_started - SESSION_GAP_MS) {
    if (ts > st.last_seen) st.last_seen = ts;
    if (ts < st.session_started) st.session_started = ts;
    return {
      info: {
        sessionId: st.session_id,
        channel: st.session_channel as Channel,
        source: st.session_source,
        started: false,
      },
      state: st,
      persist: false,
    };
  }
  const acq = deriveAcquisition(url, referrer);
  let channel: Channel = acq.channel;
  let source = acq.source;
  // Self-referral (e.g. a tab left open past the gap): not a new source, the visit continues.
  if (st && acq.selfReferral && channel === "direct") {
    channel = st.session_channel as Channel;
    source = st.session_source;
  }
  const sessionId = timeOrderedId("ses", ts);
  const info = { sessionId, channel, source, started: true };
  // A late event older than the current session: its own session, current state untouched.
  if (st && ts < st.session_started) return { info, state: st, persist: false };
  const next = st ?? {
    first_seen: ts,
    first_channel: channel,
    first_source: source,
    first_landing_page: acq.landingPage,
    session_id: "",
    session_started: ts,
    session_channel: channel,
    session_source: source,
    session_landing_page: acq.landingPage,
    last_seen: ts,
  };
  next.session_id = sessionId;
  next.session_started = ts;
  next.session_channel = channel;
  next.session_source = source;
  next.session_landing_page = acq.landingPage;
  next.last_seen = ts;
  return { info, state: next, persist: true };
}

/** Whatever decides an event's session for the writer (this process's tracker, or the shared one). */
export interface SessionAssigner {
  assign(projectId: string, visitorId: string, ts: number, url: string, referrer: string | null): SessionInfo;
}

/** A visitor's state as cached: the table row plus the flush that last touched it. */
type CachedState = VisitorState & { touched: number };

/**
 * Session and first-touch state per visitor: per-project LRU maps in front of `event_visitors`.
 * Used only by the writer, one flush at a time. A flush changes cached states in place (no copy
 * per event); a rolled-back flush drops the whole cache, which then reloads from the table, the
 * truth after any commit.
 */
export class SessionTracker implements SessionAssigner {
  private byProject = new Map<string, Map<string, CachedState>>();
  private size = 0;
  /** states whose session changed in this flush: only these rows are written */
  private dirty: { projectId: string; visitorId: string; st: CachedState }[] = [];
  private flush = 1;

  private raw?: { select: SQLite.Statement; upsert: SQLite.Statement };

  /**
   * On SQLite the raw better-sqlite3 handle (same connection, so same transaction as the writer's
   * Kysely transaction) runs the per-visitor lookups and upserts as prepared statements.
   */
  constructor(
    sqlite?: SQLite.Database,
    private capacity = 100_000,
  ) {
    if (!sqlite) return;
    this.raw = {
      select: sqlite.prepare(
        `select ${STATE_COLUMNS.join(",")}, ${sqliteVisitorLastSeen("v.project_id", "v.visitor_id")} as events_last_seen from event_visitors v where project_id = ? and visitor_id = ?`,
      ),
      upsert: sqlite.prepare(
        `insert into event_visitors (project_id, visitor_id, ${STATE_COLUMNS.join(",")}) values (${Array(
          STATE_COLUMNS.length + 2,
        )
          .fill("?")
          .join(
            ",",
          )}) on conflict (project_id, visitor_id) do update set ${SESSION_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ")}`,
      ),
    };
  }

  /** Whether `load` must run before `assign` (PostgreSQL); on SQLite `assign` looks up misses itself. */
  get needsLoad(): boolean {
    return !this.raw;
  }

  /**
   * Loads the state of visitors that are not cached (PostgreSQL, in chunks). The table row is
   * written only when a session starts, so the visitor's latest event time comes from the events
   * index (index-only max).
   */
  async load(db: DbOrTrx, visitors: Map<string, Set<string>>): Promise<void> {
    for (const [projectId, ids] of visitors) {
      const cached = this.byProject.get(projectId);
      const missing = cached ? [...ids].filter((v) => !cached.has(v)) : [...ids];
      for (let i = 0; i < missing.length; i += LOAD_CHUNK) {
        const rows = await visitorsWithLastSeen(db, projectId, missing.slice(i, i + LOAD_CHUNK)).execute();
        for (const { project_id, visitor_id, ...state } of rows)
          this.remember(project_id, visitor_id, withLastSeen(state));
      }
    }
  }

  private lookup(projectId: string, visitorId: string): CachedState | undefined {
    const st = this.byProject.get(projectId)?.get(visitorId);
    if (st || !this.raw) return st;
    const row = this.raw.select.get(projectId, visitorId) as
      | (VisitorState & { events_last_seen: number | null })
      | undefined;
    return row ? this.remember(projectId, visitorId, withLastSeen(row)) : undefined;
  }

  /** Puts the event in its session: same session within 30 min of the visitor's last event. */
  assign(
    projectId: string,
    visitorId: string,
    ts: number,
    url: string,
    referrer: string | null,
  ): SessionInfo {
    const st = this.lookup(projectId, visitorId);
    // Recency is refreshed at most every TOUCH_EVERY flushes (moving a map entry per event per
    // flush cost ~2% of the batch path): eviction is LRU to within that many flushes, and an
    // evicted state only costs a reload.
    if (st && this.flush - st.touched >= TOUCH_EVERY) {
      st.touched = this.flush;
      this.touch(projectId, visitorId, st);
    }
    const r = applyEvent(st, ts, url, referrer);
    if (!r.persist) return r.info;
    const next = (st ?? this.remember(projectId, visitorId, r.state)) as CachedState;
    next.touched = this.flush;
    this.dirty.push({ projectId, visitorId, st: next });
    return r.info;
  }

  /** Writes the states changed by this flush (upsert, chunked under the bound-parameter limits). */
  async persist(trx: Trx): Promise<void> {
    // A visitor whose session restarted twice in one flush is listed twice; the last write wins.
    if (this.raw) {
      for (const { projectId, visitorId, st } of this.dirty)
        this.raw.upsert.run(projectId, visitorId, ...STATE_COLUMNS.map((c) => st[c]));
      return;
    }
    await upsertVisitorStates(trx, this.dirty);
  }

  /** The flush committed: the cached states are the truth. */
  commit(): void {
    this.dirty = [];
    this.flush++;
  }

  /** Erasure: the visitors' rows are gone, so are their cached states. */
  forget(projectId: string, visitorIds: string[]): void {
    const map = this.byProject.get(projectId);
    if (!map) return;
    for (const v of visitorIds) if (map.delete(v)) this.size--;
  }

  /** The flush rolled back: cached states may hold its changes, so forget them all. */
  rollback(): void {
    this.byProject.clear();
    this.size = 0;
    this.dirty = [];
    this.flush++;
  }

  private remember(projectId: string, visitorId: string, state: VisitorState): CachedState {
    const st = state as CachedState;
    st.touched = 0;
    let map = this.byProject.get(projectId);
    if (!map) {
      map = new Map();
      this.byProject.set(projectId, map);
    }
    if (!map.has(visitorId)) this.size++;
    map.set(visitorId, st);
    // Over capacity: drop this project's least recently used visitor (a later event reloads it).
    if (this.size > this.capacity) {
      map.delete(map.keys().next().value!);
      this.size--;
    }
    return st;
  }

  /** Marks the state most recently used (once per flush). */
  private touch(projectId: string, visitorId: string, st: CachedState): void {
    const map = this.byProject.get(projectId)!;
    map.delete(visitorId);
    map.set(visitorId, st);
  }
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
