import { randomInt } from "node:crypto";
import type { Redis } from "ioredis";
import { boundedCache } from "../../../platform/cache.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import { applyEvent, type SessionInfo, type VisitorState, withLastSeen } from "./sessions.js";
import { visitorsWithLastSeen } from "../store/visitor-states.js";

/** A browser event waiting for its session, in flush order. */
export interface PendingEvent {
  projectId: string;
  visitorId: string;
  ts: number;
  url: string;
  referrer: string | null;
}

/** How long a visitor's state stays in Redis after its last event; a miss reloads it from the database. */
const STATE_TTL_S = 86_400;
const MAX_ATTEMPTS = 50;
/** visitors whose state this process last wrote, kept to skip reading them before deciding */
const KNOWN_CAPACITY = 100_000;

/**
 * Compare-and-set of many visitors' states in one step: each key holds "token|json". A key whose
 * token is the expected one ("0" = absent) is written; each other comes back as its 1-based
 * position followed by what it holds ("" = absent), so deciding it again needs no read. Visitors
 * are independent, so the others' writes stand.
 * A write stores the caller's new token: tokens never repeat, so a key deleted and written again
 * cannot pass for the state a process remembers (a counter restarting at 1 could).
 */
const CAS = `
local out = {}
for i, key in ipairs(KEYS) do
  local cur = redis.call('GET', key)
  local token = '0'
  if cur then token = string.match(cur, '^([^|]*)|') or '' end
  if token == ARGV[3 * i - 1] then
    redis.call('SET', key, ARGV[3 * i] .. '|' .. ARGV[3 * i + 1], 'EX', ARGV[1])
  else
    out[#out + 1] = i
    out[#out + 1] = cur or ''
  end
end
return out
`;

interface Visitor {
  projectId: string;
  visitorId: string;
  key: string;
  /** positions in the flush of this visitor's events, in order */
  events: number[];
  /** the token Redis is expected to hold ("0": absent) */
  token: string;
  stored: VisitorState | undefined;
}

/** The compare-and-set's answer: position, value, position, value… of the stale keys. */
type StaleKeys = (number | string)[];

/** Where a Redis miss reloads visitors from: the flush's own transaction, once it has begun. */
export type Connection = () => Promise<DbOrTrx>;

export const visitorKey = (projectId: string, visitorId: string) => `lift:visitor:${projectId}:${visitorId}`;

/**
 * Sessions decided the same way by every API process (PostgreSQL with REDIS_URL): each visitor's
 * state lives in Redis and is written back with a compare-and-set, so two processes holding events
 * of one visitor decide in turn, the second from the first's result. No database row is locked to
 * decide; the rule itself is the one process's (`applyEvent`).
 *
 * A visitor this process wrote last is decided from what it wrote, without reading Redis first:
 * when another process wrote since, the compare-and-set returns the newer state instead of
 * writing, and that visitor is decided again. So a process that sees a visitor's events in a row spends one Redis round
 * trip per flush, not two. Other visitors are read first; a Redis miss reloads the state from the
 * database (the row and the latest stored event).
 */
export class SharedSessions {
  /**
   * key → the token and state of this process's last successful write; the least recently used
   * goes first, in constant time (a Map's oldest entry is found past every one deleted before it).
   */
  private known = boundedCache<string, { token: string; state: VisitorState }>(KNOWN_CAPACITY);
  /**
   * Tokens are numbers from a random start, +1 per write: below 1e14, so that a process of the
   * previous release (whose script adds 1 to the number it finds) still reads and writes them.
   */
  private nextToken = randomInt(1, 2 ** 46);

  constructor(private redis: Redis) {}

  async assign(
    connection: Connection,
    events: PendingEvent[],
  ): Promise<{
    infos: SessionInfo[];
    changed: { projectId: string; visitorId: string; st: VisitorState }[];
    keys: string[];
  }> {
    const byKey = new Map<string, Visitor>();
    events.forEach((e, i) => {
      const key = visitorKey(e.projectId, e.visitorId);
      const v = byKey.get(key);
      if (v) v.events.push(i);
      else
        byKey.set(key, {
          projectId: e.projectId,
          visitorId: e.visitorId,
          key,
          events: [i],
          token: "0",
          stored: undefined,
        });
    });
    const visitors = [...byKey.values()];
    const unknown: Visitor[] = [];
    for (const v of visitors) {
      const k = this.known.get(v.key);
      if (k) {
        v.token = k.token;
        v.stored = k.state;
      } else unknown.push(v);
    }
    await this.read(connection, unknown);
    const infos: SessionInfo[] = new Array(events.length);
    try {
      let pending = visitors;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === MAX_ATTEMPTS) throw new Error("visitor sessions: too many concurrent updates");
        const next: { token: string; state: VisitorState }[] = [];
        const args: (string | number)[] = [STATE_TTL_S];
        for (const v of pending) {
          // A copy: a retry starts again from what Redis holds.
          let st = v.stored ? { ...v.stored } : undefined;
          for (const i of v.events) {
            const e = events[i]!;
            const r = applyEvent(st, e.ts, e.url, e.referrer);
            infos[i] = r.info;
            st = r.state;
          }
          const token = String(this.nextToken++);
          next.push({ token, state: st! });
          args.push(v.token, token, JSON.stringify(st));
        }
        const keys = pending.map((v) => v.key);
        const stale = (await this.redis.eval(CAS, keys.length, ...keys, ...args)) as StaleKeys;
        // The stale visitors are decided again from what Redis holds now (or the database, when
        // Redis no longer holds them); the others are done.
        const again = new Set<number>();
        const absent: Visitor[] = [];
        for (let j = 0; j < stale.length; j += 2) {
          const k = Number(stale[j]) - 1;
          const v = pending[k]!;
          again.add(k);
          this.known.delete(v.key);
          if (!this.parse(v, String(stale[j + 1]))) absent.push(v);
        }
        pending.forEach((v, k) => {
          if (again.has(k)) return;
          v.stored = next[k]!.state;
          this.remember(v.key, next[k]!);
        });
        pending = pending.filter((_, k) => again.has(k));
        await this.load(connection, absent);
      }
    } catch (err) {
      // Some of the flush's visitors may be written already: drop them all, as a rolled-back
      // flush does, so that Redis holds no session of events that were never stored.
      await this.forget(visitors.map((v) => v.key)).catch(() => {});
      throw err;
    }
    return {
      infos,
      // The database row changes only when a session (re)starts; writing every visitor of the
      // flush keeps the code simple and costs an upsert per visitor whose session began or moved.
      changed: visitors
        .filter((v) => v.events.some((i) => infos[i]!.started))
        .map((v) => ({ projectId: v.projectId, visitorId: v.visitorId, st: v.stored! })),
      keys: visitors.map((v) => v.key),
    };
  }

  /** Drops states from Redis (a rolled-back flush, an erasure): the next event reloads them. */
  async forget(keys: string[]): Promise<void> {
    for (const k of keys) this.known.delete(k);
    for (let i = 0; i < keys.length; i += 500) await this.redis.del(...keys.slice(i, i + 500));
  }

  private remember(key: string, written: { token: string; state: VisitorState }): void {
    this.known.set(key, written);
  }

  /** Takes a value Redis holds ("token|json"); false when it holds none. */
  private parse(v: Visitor, raw: string | null): boolean {
    if (!raw) {
      v.token = "0";
      v.stored = undefined;
      return false;
    }
    const bar = raw.indexOf("|");
    v.token = raw.slice(0, bar);
    v.stored = JSON.parse(raw.slice(bar + 1)) as VisitorState;
    return true;
  }

  private async read(connection: Connection, visitors: Visitor[]): Promise<void> {
    if (visitors.length === 0) return;
    const values = await this.redis.mget(...visitors.map((v) => v.key));
    await this.load(
      connection,
      visitors.filter((v, i) => !this.parse(v, values[i] ?? null)),
    );
  }

  /** Visitors Redis does not hold: their state as stored in the database (none for a new one). */
  private async load(connection: Connection, visitors: Visitor[]): Promise<void> {
    if (visitors.length === 0) return;
    const db = await connection();
    const missing = new Map<string, Visitor[]>();
    for (const v of visitors) {
      const list = missing.get(v.projectId);
      if (list) list.push(v);
      else missing.set(v.projectId, [v]);
    }
    for (const [projectId, list] of missing) {
      const byId = new Map(list.map((v) => [v.visitorId, v]));
      for (let i = 0; i < list.length; i += 500) {
        const rows = await visitorsWithLastSeen(
          db,
          projectId,
          list.slice(i, i + 500).map((v) => v.visitorId),
        ).execute();
        for (const { project_id: _p, visitor_id, ...state } of rows)
          byId.get(visitor_id)!.stored = withLastSeen(state);
      }
    }
  }
}
