import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { sql } from "kysely";
import type { Config } from "../../config.js";
import type { DbHandle } from "../db/index.js";
import type { JobTable } from "../tables.js";
import { firstSchemaError } from "../validation.js";
import { enqueueJob } from "./enqueue.js";
import { DEFAULT_LEASE_MS } from "./held-job.js";
import { type JobContext, type JobKind, type NoPayload, PermanentJobError, RetryLater } from "./kinds.js";
import type { JobRegistry } from "./registry.js";

export interface WorkerOptions {
  pollMs: number;
  /**
   * How long a claimed job is ours before another worker may take it over (crash recovery). The
   * lease is renewed every third of it while the job runs, so a live worker keeps a long job and a
   * dead one loses it within this time.
   */
  leaseMs?: number;
}

interface Schedule {
  kind: JobKind<typeof NoPayload>;
  everyMs: number;
  next: number;
}

/** Polls the jobs table, runs due jobs and reschedules failures with their definition's backoff. */
export class JobWorker {
  readonly id = `w_${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private schedules: Schedule[] = [];

  constructor(
    private handle: DbHandle,
    private registry: JobRegistry,
    private config: Config,
    private log: FastifyBaseLogger,
    private opts: WorkerOptions,
  ) {}

  /** Enqueues `type` every `everyMs` (deduplicated across nodes by a unique key while queued). */
  /** Enqueues a job of `kind` every `everyMs` (one queued at a time across processes). */
  addSchedule(kind: JobKind<typeof NoPayload>, everyMs: number): void {
    this.schedules.push({ kind, everyMs, next: Date.now() + everyMs });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.tick()
        .catch((err) => this.log.error({ err }, "job worker tick failed"))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.timer = setTimeout(tick, this.opts.pollMs);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Stops polling and waits for the jobs in hand to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) await this.running;
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    for (const s of this.schedules) {
      if (now >= s.next) {
        s.next = now + s.everyMs;
        await enqueueJob(this.handle.db, s.kind, {}, { uniqueKey: `schedule:${s.kind.type}` });
      }
    }
    while (!this.stopped && (await this.runDue()) > 0) {}
  }

  /**
   * Claims and runs one due job; returns how many ran (0 or 1). One at a time: a job claimed but
   * not started would wait out a dead process's lease instead of being run by a live one.
   */
  async runDue(): Promise<number> {
    const job = await this.claim();
    if (!job) return 0;
    await this.execute(job);
    return 1;
  }

  /** Runs due jobs until none is due (tests); jobs scheduled in the future are left alone. */
  async drain(maxRounds = 1000): Promise<void> {
    for (let i = 0; i < maxRounds; i++) if ((await this.runDue()) === 0) return;
  }

  private get leaseMs(): number {
    return this.opts.leaseMs ?? DEFAULT_LEASE_MS;
  }

  private async claim(): Promise<JobTable | undefined> {
    const now = Date.now();
    const lease = now + this.leaseMs;
    const iso = new Date(now).toISOString();
    const lock = this.handle.dialect === "postgres" ? sql`FOR UPDATE SKIP LOCKED` : sql``;
    const res = await sql<JobTable>`
      UPDATE jobs SET status = 'running', locked_by = ${this.id}, locked_until = ${lease},
        attempts = attempts + 1, updated_at = ${iso}
      WHERE id IN (
        SELECT id FROM jobs
        WHERE (status = 'queued' AND run_at <= ${now}) OR (status = 'running' AND locked_until < ${now})
        ORDER BY run_at LIMIT 1 ${lock}
      )
      RETURNING *`.execute(this.handle.db);
    return res.rows[0];
  }

  /** Keeps the lease of a running job; stops when the job ends. */
  private renewLease(job: JobTable): () => void {
    const timer = setInterval(() => {
      this.handle.db
        .updateTable("jobs")
        .set({ locked_until: Date.now() + this.leaseMs })
        .where("id", "=", job.id)
        .where("locked_by", "=", this.id)
        .execute()
        .catch((err) => this.log.warn({ err, jobId: job.id }, "job lease renewal failed"));
    }, this.leaseMs / 3);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async execute(job: JobTable): Promise<void> {
    const registered = this.registry.get(job.type);
    const def = registered?.def;
    const ctx: JobContext = {
      handle: this.handle,
      config: this.config,
      log: this.log,
      attempt: job.attempts,
      jobId: job.id,
    };
    const stopRenewing = this.renewLease(job);
    try {
      if (!registered || !def) throw new PermanentJobError(`no job definition for type ${job.type}`);
      const payload: unknown = JSON.parse(job.payload);
      if (!registered.check(payload))
        throw new PermanentJobError(firstSchemaError(registered.check, `${job.type} payload`).message);
      await def.run(payload, ctx);
      stopRenewing();
      await this.finish(job, "done", null, null);
    } catch (err) {
      stopRenewing();
      const message = err instanceof Error ? err.message : String(err);
      const retries = def?.retry ?? [];
      const maxAttempts = job.max_attempts > 0 ? job.max_attempts : retries.length + 1;
      if (err instanceof PermanentJobError || job.attempts >= maxAttempts) {
        this.log.warn(
          { jobId: job.id, type: job.type, attempts: job.attempts, err: message },
          "job failed for good",
        );
        await this.finish(job, "failed", message, null);
        return;
      }
      const scheduled =
        (retries[job.attempts - 1] ?? retries[retries.length - 1] ?? 1) * 1000 * this.config.retryScale;
      const wanted = err instanceof RetryLater ? err.delayMs : 0;
      await this.finish(job, "queued", message, Date.now() + Math.ceil(Math.max(scheduled, wanted)));
    }
  }

  private async finish(
    job: JobTable,
    status: JobTable["status"],
    error: string | null,
    runAt: number | null,
  ) {
    await this.handle.db
      .updateTable("jobs")
      .set({
        status,
        last_error: error,
        locked_by: null,
        locked_until: null,
        updated_at: new Date().toISOString(),
        ...(runAt !== null ? { run_at: runAt } : {}),
      })
      .where("id", "=", job.id)
      .where("locked_by", "=", this.id)
      .execute();
  }
}
