import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import type { Trx } from "../../../platform/db/index.js";
import type { FlushItem } from "../flush-rows.js";
import { type SessionAssigner, type SessionInfo, SessionTracker } from "./sessions.js";
import { type PendingEvent, SharedSessions, visitorKey } from "./shared-sessions.js";
import { type LocalVisitorStates, upsertVisitorStates } from "../store/visitor-states.js";

/**
 * The writer's session step: the sessions of one flush, decided by this process
 * (`SessionTracker`: SQLite, or one process on PostgreSQL) or through Redis by every process alike
 * (`SharedSessions`: PostgreSQL with REDIS_URL). Per flush the writer calls `start` (before the
 * transaction), `began` and `decide` (in it), then `assign` for each browser event in the order
 * `pendingOf` lists them, `persist`, and `commit` or `rollback`.
 */
export class SessionStep implements SessionAssigner {
  private local: SessionTracker;
  private shared?: SharedSessions;
  private decided: Awaited<ReturnType<SharedSessions["assign"]>> | null = null;
  private next = 0;
  private warned = false;
  /** the flush's transaction, once it has begun */
  private trx = deferred<Trx>();
  /** the flush's decision, under way */
  private deciding: Promise<void> | undefined;

  /**
   * `states`: the store's own lookups where one process owns the database (SQLite,
   * `localVisitorStates`), which leaves nothing to share through Redis.
   */
  constructor(
    states: LocalVisitorStates | undefined,
    redis: Redis | undefined,
    private log: FastifyBaseLogger,
  ) {
    this.local = new SessionTracker(states);
    if (redis && !states) this.shared = new SharedSessions(redis);
  }

  /**
   * A flush begins. Its sessions are decided from now on: Redis is asked while BEGIN goes out. A
   * visitor to load from the database is read on the flush's transaction once it has begun, never
   * on a second connection from the pool (that deadlocked once requests blocked on the flush's
   * locks held every pool connection). `items` null: decided by `decide` (keyed requests, whose
   * duplicates are known only once their keys are claimed, and must not move a session).
   */
  start(items: readonly FlushItem[] | null): void {
    this.trx = deferred<Trx>();
    this.deciding = items ? this.decideOrLoad(() => this.trx.promise, pendingOf(items)) : undefined;
    this.deciding?.catch(() => {}); // awaited in the transaction, or by `rollback`
  }

  /** The flush's transaction has begun. */
  began(trx: Trx): void {
    this.trx.resolve(trx);
  }

  /** Resolves once the sessions of the flush's `items` (those it stores) are decided. */
  decide(items: readonly FlushItem[]): Promise<void> {
    this.deciding ??= this.decideOrLoad(() => this.trx.promise, pendingOf(items));
    return this.deciding;
  }

  /**
   * Decides (shared) or loads (local, PostgreSQL) what the flush's events need. Redis is asked at
   * once; the database only through `connection`, the flush's own transaction.
   */
  private async decideOrLoad(connection: () => Promise<Trx>, events: PendingEvent[]): Promise<void> {
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

  /** In the flush's transaction: the visitors' states whose session (re)started. */
  async persist(trx: Trx): Promise<void> {
    if (this.decided) await upsertVisitorStates(trx, this.decided.changed);
    else await this.local.persist(trx);
  }

  commit(): void {
    if (this.decided) this.warned = false;
    this.decided = null;
    this.deciding = undefined;
    this.local.commit();
  }

  /** The flush rolled back: Redis may hold its decisions, so those visitors reload from the database. */
  async rollback(err: unknown): Promise<void> {
    this.trx.reject(err);
    await this.deciding?.catch(() => {});
    this.deciding = undefined;
    this.local.rollback();
    const keys = this.decided?.keys;
    this.decided = null;
    if (keys && this.shared) await this.shared.forget(keys).catch(() => {});
  }

  /** Erasure: the visitors' session state is gone from the database, so it goes from memory and Redis. */
  async forget(projectId: string, visitorIds: string[]): Promise<void> {
    this.local.forget(projectId, visitorIds);
    await this.shared?.forget(visitorIds.map((v) => visitorKey(projectId, v))).catch(() => {});
  }
}

/** The browser events of a flush in the order `flushRows` assigns them (server events have no session). */
export function pendingOf(items: readonly FlushItem[]): PendingEvent[] {
  const out: PendingEvent[] = [];
  for (const it of items) {
    if (it.origin === "server") continue;
    for (const e of it.events)
      out.push({
        projectId: it.project.id,
        visitorId: e.visitorId,
        ts: e.ts,
        url: e.url,
        referrer: e.referrer,
      });
  }
  return out;
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

/** A promise with its settle functions, for a value that arrives later (the flush's transaction). */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}
