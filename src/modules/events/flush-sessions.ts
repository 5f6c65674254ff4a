import type SQLite from "better-sqlite3";
import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import type { Trx } from "../../platform/db/index.js";
import { type SessionAssigner, type SessionInfo, SessionTracker, upsertVisitorStates } from "./sessions.js";
import { type Connection, type PendingEvent, SharedSessions, visitorKey } from "./shared-sessions.js";

/**
 * The sessions of one flush, decided by this process (`SessionTracker`: SQLite, or one process
 * on PostgreSQL) or through Redis by every process alike (`SharedSessions`: PostgreSQL with
 * REDIS_URL). The writer asks for each browser event's session in the order `prepare` was given.
 */
export class FlushSessions implements SessionAssigner {
  private local: SessionTracker;
  private shared?: SharedSessions;
  private decided: Awaited<ReturnType<SharedSessions["assign"]>> | null = null;
  private next = 0;
  private warned = false;

  constructor(
    sqlite: SQLite.Database | undefined,
    redis: Redis | undefined,
    private log: FastifyBaseLogger,
  ) {
    this.local = new SessionTracker(sqlite);
    if (redis && !sqlite) this.shared = new SharedSessions(redis);
  }

  /**
   * Decides (shared) or loads (local, PostgreSQL) what the flush's events need. Redis is asked at
   * once; the database only through `connection`, the flush's own transaction.
   */
  async prepare(connection: Connection, events: PendingEvent[]): Promise<void> {
    this.decided = null;
    this.next = 0;
    if (this.shared && events.length > 0) {
      try {
        this.decided = await this.shared.assign(connection, events);
        return;
      } catch (err) {
        if (!isRedisUnavailable(err)) throw err;
        // Ingest goes on without Redis; a visitor seen by two processes meanwhile may get two
        // sessions. The local cache is not kept while Redis decides, so it starts empty.
        if (!this.warned) this.log.warn({ err }, "Redis unavailable: sessions decided in this process");
        this.warned = true;
        this.local.rollback();
      }
    }
    if (this.local.needsLoad) await this.local.load(await connection(), visitorsOf(events));
  }

  assign(
    projectId: string,
    visitorId: string,
    ts: number,
    url: string,
    referrer: string | null,
  ): SessionInfo {
    if (this.decided) return this.decided.infos[this.next++]!;
    return this.local.assign(projectId, visitorId, ts, url, referrer);
  }

  async persist(trx: Trx): Promise<void> {
    if (this.decided) await upsertVisitorStates(trx, this.decided.changed);
    else await this.local.persist(trx);
  }

  commit(): void {
    if (this.decided) this.warned = false;
    this.decided = null;
    this.local.commit();
  }

  /** The flush rolled back: Redis may hold its decisions, so those visitors reload from the database. */
  async rollback(): Promise<void> {
    this.local.rollback();
    const keys = this.decided?.keys;
    this.decided = null;
    if (keys && this.shared) await this.shared.forget(keys).catch(() => {});
  }

  async forget(projectId: string, visitorIds: string[]): Promise<void> {
    this.local.forget(projectId, visitorIds);
    await this.shared?.forget(visitorIds.map((v) => visitorKey(projectId, v))).catch(() => {});
  }
}

function visitorsOf(events: PendingEvent[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of events) {
    const set = out.get(e.projectId);
    if (set) set.add(e.visitorId);
    else out.set(e.projectId, new Set([e.visitorId]));
  }
  return out;
}

/** ioredis' errors when the server cannot be reached (offline queue off: commands fail at once). */
function isRedisUnavailable(err: unknown): boolean {
  const m = err instanceof Error ? err.message : "";
  return /Stream isn't writeable|Connection is closed|ECONNREFUSED|max retries|enableOfflineQueue/i.test(m);
}
