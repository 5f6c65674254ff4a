import type SQLite from "better-sqlite3";
import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import { type Channel, deriveAcquisition } from "./channel.js";
import { timeOrderedId } from "./ids.js";
import type { EventVisitorTable } from "./tables.js";

/** 30 minutes of inactivity end a session (GA4, Plausible). */
export const SESSION_GAP_MS = 30 * 60_000;
const LOAD_CHUNK = 500;
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

type VisitorState = Omit<EventVisitorTable, "project_id" | "visitor_id">;

/** Numbers from either driver; last seen is the later of the row's and the events'. */
function withLastSeen(st: VisitorState & { events_last_seen: number | string | null }): VisitorState {
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
}

/**
 * Session and first-touch state per visitor: an LRU map in front of `event_visitors`. Used only by
 * the writer, one flush at a time; changes of a flush go to an overlay that becomes visible in the
 * LRU after the transaction commits (and is dropped on rollback).
 */
export class SessionTracker {
  private lru = new Map<string, VisitorState>();
  private overlay = new Map<string, VisitorState>();
  /** visitors of the overlay whose session changed: only these rows are written */
  private dirty = new Set<string>();

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
        `select ${STATE_COLUMNS.join(",")}, (select max(ts) from events e where e.project_id = v.project_id and e.visitor_id = v.visitor_id) as events_last_seen from event_visitors v where project_id = ? and visitor_id = ?`,
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

  private static key(projectId: string, visitorId: string): string {
    return `${projectId}\u0000${visitorId}`;
  }

  /**
   * Loads the state of visitors that are not cached. The table row is written only when a session
   * starts, so the visitor's latest event time comes from the events index (index-only max).
   */
  async load(trx: Trx, visitors: Map<string, Set<string>>): Promise<void> {
    for (const [projectId, ids] of visitors) {
      const missing = [...ids].filter((v) => !this.lru.has(SessionTracker.key(projectId, v)));
      if (this.raw) {
        for (const v of missing) {
          const st = this.raw.select.get(projectId, v) as
            | (VisitorState & { events_last_seen: number | null })
            | undefined;
          if (st) this.remember(SessionTracker.key(projectId, v), withLastSeen(st));
        }
        continue;
      }
      for (let i = 0; i < missing.length; i += LOAD_CHUNK) {
        const rows = await visitorsWithLastSeen(trx, projectId, missing.slice(i, i + LOAD_CHUNK)).execute();
        for (const { project_id, visitor_id, ...state } of rows) {
          this.remember(SessionTracker.key(project_id, visitor_id), withLastSeen(state));
        }
      }
    }
  }

  /** Puts the event in its session: same session within 30 min of the visitor's last event. */
  assign(
    projectId: string,
    visitorId: string,
    ts: number,
    url: string,
    referrer: string | null,
  ): SessionInfo {
    const key = SessionTracker.key(projectId, visitorId);
    let st = this.overlay.get(key);
    if (!st) {
      const cached = this.lru.get(key);
      if (cached) st = { ...cached };
    }
    if (st && ts <= st.last_seen + SESSION_GAP_MS && ts >= st.session_started - SESSION_GAP_MS) {
      if (ts > st.last_seen) st.last_seen = ts;
      if (ts < st.session_started) st.session_started = ts;
      this.overlay.set(key, st);
      return { sessionId: st.session_id, channel: st.session_channel as Channel, source: st.session_source };
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
    if (st && ts < st.session_started) {
      // A late event older than the current session: its own session, current state untouched.
      return { sessionId, channel, source };
    }
    const next: VisitorState = st ?? {
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
    this.overlay.set(key, next);
    this.dirty.add(key);
    return { sessionId, channel, source };
  }

  /** Writes the states changed by this flush (upsert, chunked under the bound-parameter limits). */
  async persist(trx: Trx): Promise<void> {
    if (this.raw) {
      for (const key of this.dirty) {
        const st = this.overlay.get(key)!;
        const sep = key.indexOf("\u0000");
        this.raw.upsert.run(key.slice(0, sep), key.slice(sep + 1), ...STATE_COLUMNS.map((c) => st[c]));
      }
      return;
    }
    const rows: EventVisitorTable[] = [];
    for (const key of this.dirty) {
      const st = this.overlay.get(key)!;
      const sep = key.indexOf("\u0000");
      rows.push({ project_id: key.slice(0, sep), visitor_id: key.slice(sep + 1), ...st });
    }
    for (let i = 0; i < rows.length; i += 1000) {
      await trx
        .insertInto("event_visitors")
        .values(rows.slice(i, i + 1000))
        .onConflict((oc) =>
          oc.columns(["project_id", "visitor_id"]).doUpdateSet((eb) => ({
            session_id: eb.ref("excluded.session_id"),
            session_started: eb.ref("excluded.session_started"),
            session_channel: eb.ref("excluded.session_channel"),
            session_source: eb.ref("excluded.session_source"),
            session_landing_page: eb.ref("excluded.session_landing_page"),
            last_seen: eb.ref("excluded.last_seen"),
          })),
        )
        .execute();
    }
  }

  /** The flush committed: its states become the cached truth. */
  commit(): void {
    for (const [key, st] of this.overlay) this.remember(key, st);
    this.overlay.clear();
    this.dirty.clear();
  }

  /** The flush rolled back: forget its changes. */
  rollback(): void {
    this.overlay.clear();
    this.dirty.clear();
  }

  private remember(key: string, st: VisitorState): void {
    this.lru.delete(key);
    this.lru.set(key, st);
    if (this.lru.size > this.capacity) this.lru.delete(this.lru.keys().next().value!);
  }
}

/**
 * Visitor rows with the time of their latest stored event (`events_last_seen`): the truth after a
 * restart, when the in-memory session state is gone.
 */
export function visitorsWithLastSeen(db: DbOrTrx, projectId: string, visitorIds: string[]) {
  return db
    .selectFrom("event_visitors as v")
    .selectAll("v")
    .select((eb) =>
      eb
        .selectFrom("events as e")
        .select((e) => e.fn.max("e.ts").as("m"))
        .whereRef("e.project_id", "=", "v.project_id")
        .whereRef("e.visitor_id", "=", "v.visitor_id")
        .as("events_last_seen"),
    )
    .where("v.project_id", "=", projectId)
    .where("v.visitor_id", "in", visitorIds);
}
