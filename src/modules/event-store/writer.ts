import type { FastifyBaseLogger } from "fastify";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { isRetryableTransactionError, type Trx, withTransaction } from "../../platform/db/index.js";
import type { CommittedEvent, EventBus, EventOrigin } from "../../platform/event-bus.js";
import { type FlushItem, type IncomingEvent, flushRows } from "./flush-rows.js";
import type { SessionStep } from "./sessions/session-step.js";
import type { CommittedListener, EventStore, InsertedRows } from "./store/types.js";

export interface WriterOptions {
  /** flush as soon as this many events wait */
  maxEvents: number;
  /** otherwise flush this long after the first waiting event */
  maxDelayMs: number;
}

interface Item extends FlushItem {
  resolve: (n: number) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: requests hand their events to `write`, which resolves only after the transaction
 * holding them commits. One flush runs at a time; whatever arrives meanwhile forms the next one, so
 * under load a single transaction (one WAL sync) carries many requests. A flush is, in one
 * transaction: the store's message claims (keyed requests), the session step, the rows built
 * (flush-rows.ts) and inserted by the store, then the pipeline's processors (the event bus).
 */
export class EventWriter {
  private queue: Item[] = [];
  private queued = 0;
  /** cancels the scheduled flush, when one is scheduled */
  private cancel: (() => void) | null = null;
  private running: Promise<void> | null = null;
  /** work that must run alone (erasures), taken before the next flush */
  private exclusives: (() => Promise<boolean>)[] = [];
  private listeners: CommittedListener[] = [];
  /** the latest receipt time given (epoch ms) */
  private lastReceived = 0;

  constructor(
    readonly store: EventStore,
    private sessions: SessionStep,
    private bus: EventBus,
    private log: FastifyBaseLogger,
    private opts: WriterOptions = { maxEvents: 5000, maxDelayMs: 0 },
  ) {
    // Continue from the newest stored row's receipt time (a restart after a clock change).
    this.lastReceived = store.newestReceipt() ?? 0;
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

  /**
   * Calls `listener` with every flush that commits from now on, in commit order, after its commit
   * and before its requests are answered: the seam where a second store (of analytics reads) is
   * fed. A listener that throws is logged; the flush stays committed.
   */
  onCommitted(listener: CommittedListener): void {
    this.listeners.push(listener);
  }

  /**
   * A request's receipt time: now, but never before the previous one's, so receipt times rise
   * with storage order even if the clock is set back (reads bound their scans by it: pages.ts).
   */
  private receivedNow(): number {
    this.lastReceived = Math.max(Date.now(), this.lastReceived);
    return this.lastReceived;
  }

  /** Flushes what is queued and waits for it, and for the store's upkeep that follows. */
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
   * Runs `task` in a transaction of its own with no flush or store upkeep under way (an index merge
   * already started is finished first), so it sees and changes stored events while none is being
   * written. Visitors it reports through `forget` lose their in-memory session and index state once
   * it commits. Requests arriving meanwhile queue for the next flush.
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
    await this.store.settle();
    const forgotten: { projectId: string; visitorIds: string[]; seqs: number[] }[] = [];
    const result = await withTransaction(this.store.db, (trx) => {
      forgotten.length = 0;
      return task(trx, (projectId, visitorIds, seqs) => forgotten.push({ projectId, visitorIds, seqs }));
    });
    for (const f of forgotten) await this.sessions.forget(f.projectId, f.visitorIds);
    this.store.forget(forgotten.flatMap((f) => f.seqs));
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
      // No traffic: upkeep under way (an index merge) goes on, one short transaction per step.
      if (this.store.upkeepDue) this.run(this.store.upkeep());
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
    this.run(this.flush(items).then(() => this.store.upkeep()));
  }

  /** `work` (a flush, an upkeep step or an exclusive task), then the store's maintenance; then what is next. */
  private run(work: Promise<boolean>): void {
    this.running = work
      .catch((err) => {
        this.log.error({ err }, "event writer step failed");
        return false;
      })
      .then(async (upkeepOk) => {
        await this.store.maintain();
        return upkeepOk;
      })
      .then((upkeepOk) => {
        this.running = null;
        // a failing upkeep step waits for the next flush instead of retrying in a loop
        if (this.queue.length > 0 || this.exclusives.length > 0 || (upkeepOk && this.store.upkeepDue))
          this.kick();
      });
  }

  private async flush(items: Item[]): Promise<void> {
    try {
      await this.commitRetrying(items);
      if (!this.store.deferAnswers) for (const it of items) it.resolve(it.events.length);
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
   * whole flush back, and `commit` dropped what the store and the session step took from it: it
   * runs again, as the one-by-one retry of a failed group does; so it does after the store removed
   * the cause of a failure (a missing month's partition).
   */
  private async commitRetrying(items: Item[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.commit(items);
      } catch (err) {
        if (attempt < 4 && (await this.store.repair(err, items))) continue;
        if (attempt >= 4 || !isRetryableTransactionError(err)) throw err;
        await new Promise((r) => setTimeout(r, 5 * 2 ** attempt + Math.random() * 10));
      }
    }
  }

  private async commit(items: Item[]): Promise<void> {
    let afterCommit: (() => void)[] = [];
    // set in the transaction's callback (a cast keeps the compiler from narrowing it to null)
    let stored = null as { events: CommittedEvent[]; rows: InsertedRows } | null;
    // Keyed requests (Segment's messageIds): the store claims the keys first, in the transaction,
    // and sessions are decided for the events that remain (a duplicate must not move a session).
    const keyed = items.some((it) => it.messageIds);
    this.sessions.start(keyed ? null : items);
    try {
      // attempts 1: processors update in-memory caches as they go; a failed flush is answered as failed.
      await withTransaction(
        this.store.db,
        async (trx) => {
          this.sessions.began(trx);
          const kept = keyed ? await this.store.claim(trx, items) : items;
          await this.sessions.decide(kept);
          const { values, committed } = flushRows(kept, this.sessions);
          // Every event of the flush was a duplicate: only the claims' statement ran.
          if (values.length === 0) return;
          const rows = await this.store.insert(trx, values, kept);
          await this.sessions.persist(trx);
          afterCommit = await this.bus.process(trx, committed, rows.versions);
          stored = { events: committed, rows };
        },
        { attempts: 1 },
      );
    } catch (err) {
      await this.sessions.rollback(err);
      this.store.rolledBack();
      throw err;
    }
    this.store.committed();
    this.sessions.commit();
    for (const fn of afterCommit) fn();
    if (stored) this.announce(stored);
  }

  private announce({ events, rows }: { events: CommittedEvent[]; rows: InsertedRows }): void {
    if (this.listeners.length === 0) return;
    const batch = { events, keys: events.map((_, i) => rows.keyOf(i)) };
    for (const listener of this.listeners) {
      try {
        listener(batch);
      } catch (err) {
        this.log.error({ err }, "a committed-events listener failed");
      }
    }
  }
}

/** Tells the writer which visitors' stored events an exclusive task deleted (SQLite keys in `seqs`). */
export type ForgetVisitors = (projectId: string, visitorIds: string[], seqs: number[]) => void;
