import {
  type DbHandle,
  isRetryableTransactionError,
  type Trx,
  withTransaction,
} from "../../platform/db/index.js";
import { isMissingPartition } from "../../platform/db/partitions.js";
import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { readConfigVersions } from "../../platform/config-version.js";
import type { EventBus, EventOrigin } from "../../platform/event-bus.js";
import { AT, WIDTH, insertPostgresStatement, sqliteInserter } from "./rows.js";
import { type FlushItem, flushRows, pendingOf } from "./flush-rows.js";
import { FlushSessions } from "./flush-sessions.js";
import { ensureEventPartitions } from "./partitions.js";
import { VisitorIndex } from "./visitor-index.js";
import type { IncomingEvent } from "./validate.js";

export interface WriterOptions {
  /** flush as soon as this many events wait */
  maxEvents: number;
  /** otherwise flush this long after the first waiting event */
  maxDelayMs: number;
  /** SQLite: events per merge of the per-visitor index (visitor-index.ts) */
  indexMergeRows: number;
  /** SQLite: index entries written per merge step (default 16384) */
  indexMergeStep?: number;
  /** PostgreSQL: sessions are decided through Redis, alike in every process (flush-sessions.ts) */
  redis?: Redis;
  /** where the keys of requests written with message ids are claimed (segment/dedup.ts) */
  claims?: MessageClaims;
}

/**
 * Stores each message key once per project: a flush holding keyed requests claims their keys in
 * its own transaction, before its rows, and stores only the events whose key it claimed. The keys
 * commit with the events or roll back with them, so a crash can neither store a message twice nor
 * keep a key whose events were lost.
 */
export interface MessageClaims {
  /**
   * In the flush's transaction: the items without the events whose key is already stored, or is
   * claimed by an earlier event of the flush; the others' keys are stored.
   */
  claim(trx: Trx, items: readonly FlushItem[]): Promise<readonly FlushItem[]>;
  /** the transaction of the last `claim` committed */
  committed(): void;
  /** the transaction of the last `claim` rolled back: its keys are free again */
  rolledBack(): void;
}

interface Item extends FlushItem {
  resolve: (n: number) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: requests hand their events to `write`, which resolves only after the transaction
 * holding them commits. One flush runs at a time; whatever arrives meanwhile forms the next one, so
 * under load a single transaction (one WAL sync) carries many requests.
 */
export class EventWriter {
  private queue: Item[] = [];
  private queued = 0;
  /** cancels the scheduled flush, when one is scheduled */
  private cancel: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private sessions: FlushSessions;
  /** returns the `seq` of the first inserted row (the others follow consecutively) */
  private insertMany?: (values: unknown[]) => number;
  private visitorIndex?: VisitorIndex;
  /** work that must run alone (erasures), taken before the next flush */
  private exclusives: (() => Promise<boolean>)[] = [];

  constructor(
    private handle: DbHandle,
    private bus: EventBus,
    private log: FastifyBaseLogger,
    private opts: WriterOptions = { maxEvents: 5000, maxDelayMs: 0, indexMergeRows: 262_144 },
  ) {
    if (handle.sqlite) {
      this.insertMany = sqliteInserter(handle);
      // before the session tracker, whose prepared lookup reads the index's tail
      this.visitorIndex = new VisitorIndex(handle.sqlite, opts.indexMergeRows, opts.indexMergeStep);
    }
    this.sessions = new FlushSessions(handle.sqlite, opts.redis, log);
    // SQLite: continue from the newest stored row's receipt time (a restart after a clock change).
    const newest = handle.sqlite
      ?.prepare("select received_at from events order by seq desc limit 1")
      .pluck()
      .get() as number | undefined;
    if (newest !== undefined) this.lastReceived = Number(newest);
  }

  /**
   * Queues events of one request; resolves with their count once they are committed. With
   * `messageIds` (one per event), an event whose key the project already stored is left out.
   */
  write(
    project: ProjectRef,
    events: IncomingEvent[],
    origin: EventOrigin,
    opts: { fromPublicKey?: boolean; messageIds?: (string | null)[] } = {},
  ): Promise<number> {
    if (events.length === 0) return Promise.resolve(0);
    let messageIds = opts.messageIds;
    if (messageIds && !this.opts.claims) throw new Error("this writer stores no message ids");
    // Sessions are assigned in time order (server events have none).
    if (origin === "web" && events.some((e, i) => i > 0 && e.ts < events[i - 1]!.ts)) {
      if (messageIds) {
        const order = events.map((_, i) => i).sort((x, y) => events[x]!.ts - events[y]!.ts);
        const ids = messageIds;
        events = order.map((i) => events[i]!);
        messageIds = order.map((i) => ids[i]!);
      } else events = [...events].sort((a, b) => a.ts - b.ts);
    }
    return new Promise((resolve, reject) => {
      const receivedAt = this.receivedNow();
      this.queue.push({
        project,
        events,
        origin,
        receivedAt,
        fromPublicKey: opts.fromPublicKey,
        messageIds,
        resolve,
        reject,
      });
      this.queued += events.length;
      this.schedule();
    });
  }

  /** the latest receipt time given (epoch ms) */
  private lastReceived = 0;

  /**
   * A request's receipt time: now, but never before the previous one's, so receipt times rise
   * with storage order even if the clock is set back (reads bound their scans by it: pages.ts).
   */
  private receivedNow(): number {
    this.lastReceived = Math.max(Date.now(), this.lastReceived);
    return this.lastReceived;
  }

  /** Flushes what is queued and waits for it, and for an index merge that follows. */
  async idle(): Promise<void> {
    while (this.running || this.queue.length > 0 || this.exclusives.length > 0) {
      if (!this.running) this.kick();
      await this.running;
    }
  }

  /** Shutdown: everything queued is committed first. */
  close(): Promise<void> {
    return this.idle();
  }

  /**
   * Runs `task` in a transaction of its own with no flush or index merge under way (a merge already
   * started is finished first), so it sees and changes stored events while none is being written.
   * Visitors it reports through `forget` lose their in-memory session and index state once it
   * commits. Requests arriving meanwhile queue for the next flush.
   */
  exclusive<T>(task: (trx: Trx, forget: ForgetVisitors) => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.exclusives.push(async () => {
        try {
          resolve(await this.runAlone(task));
        } catch (err) {
          reject(err);
        }
        return true;
      });
      if (!this.running) this.kick();
    });
  }

  private async runAlone<T>(task: (trx: Trx, forget: ForgetVisitors) => Promise<T>): Promise<T> {
    while (this.visitorIndex?.merging) {
      if (!(await this.mergeIndexIfDue())) throw new Error("the per-visitor event index merge failed");
    }
    const forgotten: { projectId: string; visitorIds: string[]; seqs: number[] }[] = [];
    const result = await withTransaction(this.handle.db, (trx) => {
      forgotten.length = 0;
      return task(trx, (projectId, visitorIds, seqs) => forgotten.push({ projectId, visitorIds, seqs }));
    });
    const seqs = new Set<number>();
    for (const f of forgotten) {
      await this.sessions.forget(f.projectId, f.visitorIds);
      for (const s of f.seqs) seqs.add(s);
    }
    if (seqs.size > 0) this.visitorIndex?.forget(seqs);
    return result;
  }

  private schedule(): void {
    if (this.running) return; // the running flush picks the queue up when it ends
    if (this.queued >= this.opts.maxEvents) this.kick();
    else if (this.cancel) return;
    else if (this.opts.maxDelayMs === 0) {
      // After the current I/O phase: every request parsed in it joins this flush.
      const t = setImmediate(() => this.kick());
      this.cancel = () => clearImmediate(t);
    } else {
      const t = setTimeout(() => this.kick(), this.opts.maxDelayMs);
      this.cancel = () => clearTimeout(t);
    }
  }

  private kick(): void {
    this.cancel?.();
    this.cancel = null;
    if (this.running) return;
    const alone = this.exclusives.shift();
    if (alone) {
      this.run(alone());
      return;
    }
    if (this.queue.length === 0) {
      // No traffic: a merge under way goes on, one short transaction per step.
      if (this.visitorIndex?.mergeDue) this.run(this.mergeIndexIfDue());
      return;
    }
    // A flush takes whole requests up to maxEvents (at least one), so a burst that queued during a
    // long flush does not become one huge transaction.
    let take = 0;
    let events = 0;
    while (
      take < this.queue.length &&
      (take === 0 || events + this.queue[take]!.events.length <= this.opts.maxEvents)
    ) {
      events += this.queue[take]!.events.length;
      take++;
    }
    const items = this.queue.splice(0, take);
    this.queued -= events;
    this.run(this.flush(items).then(() => this.mergeIndexIfDue()));
  }

  /** `work` (a flush, or a merge step), then WAL upkeep; then whatever is queued or due next. */
  private run(work: Promise<boolean>): void {
    this.running = work
      .catch((err) => {
        this.log.error({ err }, "event writer step failed");
        return false;
      })
      .then(async (mergeOk) => {
        await this.maintainWal();
        return mergeOk;
      })
      .then((mergeOk) => {
        this.running = null;
        // a failing merge step waits for the next flush instead of retrying in a loop
        if (this.queue.length > 0 || this.exclusives.length > 0 || (mergeOk && this.visitorIndex?.mergeDue))
          this.kick();
      });
  }

  /**
   * Between flushes (the writer is the index's only writer): one merge step when a merge is due.
   * Requests keep arriving and queue meanwhile; the next flush takes them together.
   */
  private async mergeIndexIfDue(): Promise<boolean> {
    const index = this.visitorIndex;
    if (!index?.mergeDue) return true;
    try {
      // Through Kysely's transaction, so no other one is open on the connection meanwhile.
      // attempts 1: the step moves in-memory index state, which a rerun would apply twice.
      await withTransaction(this.handle.db, async () => index.mergeStep(), { attempts: 1 });
      index.stepCommitted();
      return true;
    } catch (err) {
      index.stepFailed();
      this.log.error(
        { err },
        "a merge step of the per-visitor event index failed; it is retried after the next flush",
      );
      return false;
    }
  }

  /** Between flushes: the WAL may start over (back-to-back commits never leave it a moment). */
  private async maintainWal(): Promise<void> {
    try {
      await this.handle.maintainWal?.();
    } catch (err) {
      this.log.warn({ err }, "WAL truncation failed; the checkpoint thread keeps copying");
    }
  }

  private async flush(items: Item[]): Promise<void> {
    try {
      await this.commitRetrying(items);
      if (this.handle.sqlite) for (const it of items) it.resolve(it.events.length);
      // PostgreSQL: answer the requests after the next flush has sent its first statement, so
      // writing their responses overlaps that round trip instead of delaying it.
      else
        setImmediate(() => {
          for (const it of items) it.resolve(it.events.length);
        });
    } catch (err) {
      if (items.length === 1) {
        items[0]!.reject(err);
        return;
      }
      // One bad request must not fail the others that shared its transaction: retry each alone.
      this.log.warn({ err }, "event group commit failed; retrying requests one by one");
      for (const it of items) {
        try {
          await this.commitRetrying([it]);
          it.resolve(it.events.length);
        } catch (e) {
          it.reject(e);
        }
      }
    }
  }

  /**
   * A deadlock or serialization failure against another process's flush (PostgreSQL) rolled the
   * whole flush back, and `commit` dropped what the caches took from it: it runs again, as the
   * one-by-one retry of a failed group does; so it does after creating a missing month's partition.
   */
  private async commitRetrying(items: Item[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.commit(items);
      } catch (err) {
        if (attempt < 4 && isMissingPartition(err)) {
          // PostgreSQL: no partition for this month (the look-ahead job has not run): create it.
          const times = items.map((it) => it.receivedAt);
          await ensureEventPartitions(this.handle.db, Math.min(...times), Math.max(...times));
          continue;
        }
        if (attempt >= 4 || !isRetryableTransactionError(err)) throw err;
        await new Promise((r) => setTimeout(r, 5 * 2 ** attempt + Math.random() * 10));
      }
    }
  }

  private async commit(items: Item[]): Promise<void> {
    let afterCommit: (() => void)[] = [];
    // Keyed requests (Segment's messageIds): the keys are claimed first, in the transaction, and
    // sessions are decided for the events that remain (a duplicate must not move a session).
    const claims = this.opts.claims && items.some((it) => it.messageIds) ? this.opts.claims : undefined;
    // Sessions are decided from the start: Redis is asked while BEGIN goes out. A visitor to load
    // from the database is read on this transaction's connection once it has begun, never on a
    // second one from the pool: that deadlocked once requests blocked on this flush's locks held
    // every pool connection.
    const began = deferred<Trx>();
    let deciding = claims ? undefined : this.sessions.prepare(() => began.promise, pendingOf(items));
    deciding?.catch(() => {}); // awaited in the transaction, or below
    try {
      // attempts 1: processors update in-memory caches as they go; a failed flush is answered as failed.
      await withTransaction(
        this.handle.db,
        async (trx) => {
          began.resolve(trx);
          let rows: readonly FlushItem[] = items;
          if (claims) {
            rows = await claims.claim(trx, items);
            deciding = this.sessions.prepare(async () => trx, pendingOf(rows));
          }
          await deciding;
          const { values, committed } = flushRows(rows, this.sessions);
          // Every event of the flush was a duplicate: only the claims' statement ran.
          if (values.length === 0) return;
          const versions = await this.insert(trx, values, rows);
          await this.sessions.persist(trx);
          afterCommit = await this.bus.process(trx, committed, versions);
        },
        { attempts: 1 },
      );
    } catch (err) {
      began.reject(err);
      await deciding?.catch(() => {});
      claims?.rolledBack();
      await this.sessions.rollback();
      this.visitorIndex?.rollback();
      throw err;
    }
    claims?.committed();
    this.sessions.commit();
    this.visitorIndex?.commit();
    for (const fn of afterCommit) fn();
  }

  /**
   * Inserts the flush's rows. PostgreSQL: in the statement that reads (and share-locks) the
   * projects' configuration versions, one round trip for both; SQLite: the bus reads them.
   */
  private async insert(
    trx: Trx,
    values: unknown[],
    items: readonly FlushItem[],
  ): Promise<Map<string, number> | undefined> {
    if (this.insertMany) {
      // Same connection and transaction as `trx` (better-sqlite3 has one connection), without
      // Kysely's per-statement compile cost.
      const firstSeq = this.insertMany(values);
      this.visitorIndex!.add(values, WIDTH, firstSeq, AT);
      return undefined;
    }
    return readConfigVersions(trx, projectsOf(items), { along: insertPostgresStatement(values) });
  }
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

const projectsOf = (items: readonly FlushItem[]): string[] => [...new Set(items.map((it) => it.project.id))];

/** Tells the writer which visitors' stored events an exclusive task deleted (SQLite keys in `seqs`). */
export type ForgetVisitors = (projectId: string, visitorIds: string[], seqs: number[]) => void;
