import type { Redis } from "ioredis";
import type { DbOrTrx } from "../../platform/db/index.js";
import {
  applyEvent,
  type SessionInfo,
  type VisitorState,
  visitorsWithLastSeen,
  withLastSeen,
} from "./sessions.js";

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

/**
 * Compare-and-set of many visitors' states in one step: each key holds "version|json"; every
 * expected version must match (0 = absent) or nothing is written and the 1-based positions of the
 * stale keys come back.
 */
const CAS = `
local stale = {}
for i, key in ipairs(KEYS) do
  local cur = redis.call('GET', key)
  local v = 0
  if cur then v = tonumber(string.match(cur, '^(%d+)|')) end
  if v ~= tonumber(ARGV[2 * i]) then stale[#stale + 1] = i end
end
if #stale > 0 then return stale end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, (tonumber(ARGV[2 * i]) + 1) .. '|' .. ARGV[2 * i + 1], 'EX', ARGV[1])
end
return stale
`;

interface Visitor {
  projectId: string;
  visitorId: string;
  key: string;
  /** positions in the flush of this visitor's events, in order */
  events: number[];
  version: number;
  stored: VisitorState | undefined;
}

export const visitorKey = (projectId: string, visitorId: string) => `lift:visitor:${projectId}:${visitorId}`;

/**
 * Sessions decided the same way by every API process (PostgreSQL with REDIS_URL): each visitor's
 * state lives in Redis, read at the start of a flush and written back with a compare-and-set, so
 * two processes holding events of one visitor decide in turn, the second from the first's result.
 * No database row is locked to decide; the rule itself is the one process's (`applyEvent`).
 * A Redis miss reloads the state from the database (the row and the latest stored event).
 */
export class SharedSessions {
  constructor(private redis: Redis) {}

  async assign(
    db: DbOrTrx,
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
          version: 0,
          stored: undefined,
        });
    });
    const visitors = [...byKey.values()];
    await this.read(db, visitors);
    const infos: SessionInfo[] = new Array(events.length);
    for (let attempt = 0; ; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error("visitor sessions: too many concurrent updates");
      const next = new Map<Visitor, VisitorState>();
      for (const v of visitors) {
        // A copy: a retry starts again from what Redis holds.
        let st = v.stored ? { ...v.stored } : undefined;
        for (const i of v.events) {
          const e = events[i]!;
          const r = applyEvent(st, e.ts, e.url, e.referrer);
          infos[i] = r.info;
          st = r.state;
        }
        next.set(v, st!);
      }
      const args: (string | number)[] = [STATE_TTL_S];
      for (const v of visitors) args.push(v.version, JSON.stringify(next.get(v)));
      const stale = (await this.redis.eval(
        CAS,
        visitors.length,
        ...visitors.map((v) => v.key),
        ...args,
      )) as number[];
      if (stale.length === 0) {
        for (const v of visitors) v.stored = next.get(v);
        break;
      }
      // Nothing was written: every visitor is decided again, the stale ones from what Redis
      // holds now, the others from the same state as before.
      await this.read(
        db,
        stale.map((i) => visitors[i - 1]!),
      );
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
    for (let i = 0; i < keys.length; i += 500) await this.redis.del(...keys.slice(i, i + 500));
  }

  private async read(db: DbOrTrx, visitors: Visitor[]): Promise<void> {
    if (visitors.length === 0) return;
    const values = await this.redis.mget(...visitors.map((v) => v.key));
    const missing = new Map<string, Visitor[]>();
    visitors.forEach((v, i) => {
      const raw = values[i];
      if (raw) {
        const bar = raw.indexOf("|");
        v.version = Number(raw.slice(0, bar));
        v.stored = JSON.parse(raw.slice(bar + 1)) as VisitorState;
        return;
      }
      v.version = 0;
      v.stored = undefined;
      const list = missing.get(v.projectId);
      if (list) list.push(v);
      else missing.set(v.projectId, [v]);
    });
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
