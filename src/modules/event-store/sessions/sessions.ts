import type { LRUCache } from "lru-cache";
import { boundedCache } from "../../../platform/cache.js";
import type { DbOrTrx, Trx } from "../../../platform/db/index.js";
import { type Channel, deriveAcquisition } from "./channel.js";
import { timeOrderedId } from "../ids.js";
import {
  type LocalVisitorStates,
  type StoredVisitorState,
  type VisitorState,
  upsertVisitorStates,
  visitorsWithLastSeen,
} from "../store/visitor-states.js";

export type { VisitorState } from "../store/visitor-states.js";

/** 30 minutes of inactivity end a session (GA4, Plausible). */
export const SESSION_GAP_MS = 30 * 60_000;
const LOAD_CHUNK = 500;
const TOUCH_EVERY = 16;

/** Numbers from either driver; last seen is the later of the row's and the events'. */
export function withLastSeen(st: StoredVisitorState): VisitorState {
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
 * Session and first-touch state per visitor: an LRU cache (per project and visitor) in front of
 * `event_visitors`.
 * Used only by the writer, one flush at a time. A flush changes cached states in place (no copy
 * per event); a rolled-back flush drops the whole cache, which then reloads from the table, the
 * truth after any commit.
 */
export class SessionTracker implements SessionAssigner {
  /**
   * `lru-cache` rather than a Map used as an LRU: evicting a Map's oldest entry (`keys().next()`)
   * walks every entry deleted before it, so once more visitors come back than the cache holds,
   * each eviction cost grew with the cache (bench/README.md, "Ingest as the store grows").
   */
  private cache: LRUCache<string, CachedState>;
  /** states whose session changed in this flush: only these rows are written */
  private dirty: { projectId: string; visitorId: string; st: CachedState }[] = [];
  private flush = 1;

  /**
   * On SQLite the writer's connection (same connection, so same transaction, as the writer's
   * Kysely transaction) looks each visitor up and writes its state as the flush meets it.
   */
  constructor(
    private raw?: LocalVisitorStates,
    capacity = 100_000,
  ) {
    this.cache = boundedCache(capacity);
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
      const missing = [...ids].filter((v) => !this.cache.has(keyOf(projectId, v)));
      for (let i = 0; i < missing.length; i += LOAD_CHUNK) {
        const rows = await visitorsWithLastSeen(db, projectId, missing.slice(i, i + LOAD_CHUNK)).execute();
        for (const { project_id, visitor_id, ...state } of rows)
          this.remember(project_id, visitor_id, withLastSeen(state));
      }
    }
  }

  private lookup(projectId: string, visitorId: string): CachedState | undefined {
    // Peeked: recency is refreshed in `assign`, at most once every TOUCH_EVERY flushes.
    const st = this.cache.peek(keyOf(projectId, visitorId));
    if (st || !this.raw) return st;
    const row = this.raw.get(projectId, visitorId);
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
      this.cache.get(keyOf(projectId, visitorId));
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
      for (const { projectId, visitorId, st } of this.dirty) this.raw.put(projectId, visitorId, st);
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
    for (const v of visitorIds) this.cache.delete(keyOf(projectId, v));
  }

  /** The flush rolled back: cached states may hold its changes, so forget them all. */
  rollback(): void {
    this.cache.clear();
    this.dirty = [];
    this.flush++;
  }

  /** Over capacity, the least recently used visitor goes (a later event reloads it). */
  private remember(projectId: string, visitorId: string, state: VisitorState): CachedState {
    const st = state as CachedState;
    st.touched = 0;
    this.cache.set(keyOf(projectId, visitorId), st);
    return st;
  }
}

const keyOf = (projectId: string, visitorId: string) => `${projectId}\u0000${visitorId}`;
