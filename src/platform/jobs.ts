import { randomUUID } from "node:crypto";
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import type { FastifyBaseLogger } from "fastify";
import { sql } from "kysely";
import type { Config } from "../config.js";
import { newId } from "./crypto.js";
import { type DbHandle, type DbOrTrx, isPostgresDb } from "./db/index.js";
import type { JobTable } from "./tables.js";
import "./tables.js";
import { compileSchema, firstSchemaError, type SchemaCheck } from "./validation.js";

export interface JobContext {
  handle: DbHandle;
  config: Config;
  log: FastifyBaseLogger;
  /** 1 on the first run. */
  attempt: number;
  jobId: string;
  registry: JobRegistry;
}

/**
 * A kind of job: its name and the TypeBox schema of its payload. Enqueueing takes the kind, so a
 * payload is type-checked against it; the worker checks the stored payload against the schema
 * before running (a job written by an older release that no longer fits fails permanently).
 */
export interface JobKind<S extends TSchema = TSchema> {
  readonly type: string;
  readonly payload: S;
}

export function jobKind<S extends TSchema>(type: string, payload: S): JobKind<S> {
  return { type, payload };
}

/** A job kind with its handler; defined in the owning module's jobs.ts, registered by its module.ts. */
export interface JobDefinition<S extends TSchema = TSchema> {
  kind: JobKind<S>;
  /** Seconds to wait before each retry; its length is the number of retries. */
  retry: number[];
  run(payload: Static<S>, ctx: JobContext): Promise<void>;
}

/** Thrown by a job to be retried no sooner than `delayMs` (e.g. a Retry-After header). */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}
/** Thrown by a job whose failure retrying cannot fix. */
export class PermanentJobError extends Error {}

export function defineJob<S extends TSchema>(
  kind: JobKind<S>,
  def: Omit<JobDefinition<S>, "kind">,
): JobDefinition<S> {
  return { kind, ...def };
}

/** The payload of jobs that carry none (scheduled sweeps). */
export const NoPayload = Type.Object({});

/** Exponential backoff: base·2^i seconds, `n` retries. */
export function exponentialBackoff(n: number, baseSeconds = 1): number[] {
  return Array.from({ length: n }, (_, i) => baseSeconds * 2 ** i);
}

export interface EnqueueOptions {
  /** Delay before the first run. */
  delayMs?: number;
  runAt?: number;
  /** While a queued or running job has this key, another enqueue with it is skipped. */
  uniqueKey?: string;
}

/** Enqueues a job in the caller's transaction, so it exists if and only if the state change commits. */
export async function enqueueJob<S extends TSchema>(
  db: DbOrTrx,
  kind: JobKind<S>,
  payload: Static<S>,
  opts: EnqueueOptions = {},
): Promise<string | null> {
  const { type } = kind;
  if (opts.uniqueKey) {
    const existing = await db
      .selectFrom("jobs")
      .select("id")
      .where("unique_key", "=", opts.uniqueKey)
      .where("status", "in", ["queued", "running"])
      .executeTakeFirst();
    if (existing) return null;
  }
  const now = new Date();
  const id = newId("job");
  await db
    .insertInto("jobs")
    .values({
      id,
      type,
      payload: JSON.stringify(payload ?? null),
      status: "queued",
      attempts: 0,
      max_attempts: 0,
      run_at: opts.runAt ?? now.getTime() + (opts.delayMs ?? 0),
      locked_until: null,
      locked_by: null,
      last_error: null,
      unique_key: opts.uniqueKey ?? null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
  return id;
}

/** A dead process's job is taken over within this time (issue 14: within 30 s). */
export const DEFAULT_LEASE_MS = 15_000;

/**
 * A job its creator has already claimed because it does the work itself, at once (a send request
 * talking to SMTP). It is durable from the creator's commit: if the creator dies, its lease lapses
 * and any worker runs it; while the creator works it renews the lease, and it settles the job when
 * done ("done", or queued again for the workers at `runAt`).
 */
export class HeldJob<S extends TSchema = TSchema> {
  readonly owner = `req_${randomUUID().slice(0, 8)}`;
  readonly id = newId("job");

  constructor(
    readonly kind: JobKind<S>,
    readonly payload: Static<S>,
    readonly leaseMs = DEFAULT_LEASE_MS,
  ) {}

  /** Inserts the job, claimed by this holder; call in the transaction that makes the work due. */
  async create(trx: DbOrTrx, uniqueKey?: string): Promise<void> {
    const now = Date.now();
    const iso = new Date(now).toISOString();
    await trx
      .insertInto("jobs")
      .values({
        id: this.id,
        type: this.kind.type,
        payload: JSON.stringify(this.payload ?? null),
        status: "running",
        attempts: 0,
        max_attempts: 0,
        run_at: now,
        locked_until: now + this.leaseMs,
        locked_by: this.owner,
        last_error: null,
        unique_key: uniqueKey ?? null,
        created_at: iso,
        updated_at: iso,
      })
      .execute();
  }

  /** Renews the lease every third of it until the returned function is called. */
  keepAlive(db: DbOrTrx, log?: FastifyBaseLogger): () => void {
    const timer = setInterval(() => {
      db.updateTable("jobs")
        .set({ locked_until: Date.now() + this.leaseMs })
        .where("id", "=", this.id)
        .where("locked_by", "=", this.owner)
        .execute()
        .catch((err) => log?.warn({ err, jobId: this.id }, "job lease renewal failed"));
    }, this.leaseMs / 3);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Ends the holder's claim: the work is done, or the workers take it from `runAt`. */
  async settle(
    db: DbOrTrx,
    outcome: { status: "done" } | { status: "queued"; runAt: number },
  ): Promise<void> {
    await db
      .updateTable("jobs")
      .set({
        status: outcome.status,
        locked_by: null,
        locked_until: null,
        updated_at: new Date().toISOString(),
        ...(outcome.status === "queued" ? { run_at: outcome.runAt } : {}),
      })
      .where("id", "=", this.id)
      .where("locked_by", "=", this.owner)
      .execute();
  }
}

export interface ServiceEvent {
  id: string;
  workspaceId: string;
  projectId: string | null;
  type: ServiceEventType;
  data: unknown;
  createdAt: string;
}
export const SERVICE_EVENT_TYPES = [
  "lead.created",
  "lead.updated",
  "experiment.started",
  "experiment.completed",
  "goal.reached",
  "connector.synced",
  "connector.error",
  "flag.updated",
] as const;
export type ServiceEventType = (typeof SERVICE_EVENT_TYPES)[number];
export type ServiceEventSubscriber = (event: ServiceEvent, ctx: JobContext) => Promise<void>;

/**
 * Writes a service event in the caller's transaction (transactional outbox) and a job that hands it
 * to the subscribers (webhook fan-out) after commit.
 */
export async function emitServiceEvent(
  db: DbOrTrx,
  scope: { workspaceId: string; projectId?: string | null } | { id: string; workspaceId: string },
  type: ServiceEventType,
  data: unknown,
): Promise<string> {
  const id = newId("evt");
  const projectId = "id" in scope ? scope.id : (scope.projectId ?? null);
  await db
    .insertInto("service_events")
    .values({
      id,
      workspace_id: scope.workspaceId,
      project_id: projectId,
      type,
      data: JSON.stringify(data),
      created_at: new Date().toISOString(),
    })
    .execute();
  await enqueueJob(db, DISPATCH_JOB, { eventId: id });
  return id;
}

/**
 * Erasure: deletes the project's service events about one subject (`data.id`, e.g. a lead's
 * lead.created / lead.updated, which carry its email and properties) and returns their ids. A
 * dispatch still queued for one of them finds nothing and stops.
 */
export async function eraseServiceEventsAbout(
  db: DbOrTrx,
  projectId: string,
  typePrefix: string,
  subjectId: string,
): Promise<string[]> {
  const idOf = isPostgresDb(db) ? sql`(data::jsonb ->> 'id')` : sql`json_extract(data, '$.id')`;
  const rows = await db
    .selectFrom("service_events")
    .select("id")
    .where("project_id", "=", projectId)
    .where("type", "like", `${typePrefix}%`)
    .where(sql<boolean>`${idOf} = ${subjectId}`)
    .execute();
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += 400)
    await db
      .deleteFrom("service_events")
      .where("id", "in", ids.slice(i, i + 400))
      .execute();
  return ids;
}

const DISPATCH_JOB = jobKind("service-event.dispatch", Type.Object({ eventId: Type.String() }));

interface Registered {
  def: JobDefinition;
  check: SchemaCheck;
}

export class JobRegistry {
  private defs = new Map<string, Registered>();
  private subscribers: ServiceEventSubscriber[] = [];

  constructor() {
    this.define(
      defineJob(DISPATCH_JOB, {
        retry: exponentialBackoff(8, 2),
        run: async ({ eventId }, ctx) => {
          const row = await ctx.handle.db
            .selectFrom("service_events")
            .selectAll()
            .where("id", "=", eventId)
            .executeTakeFirst();
          if (!row) return;
          const event: ServiceEvent = {
            id: row.id,
            workspaceId: row.workspace_id,
            projectId: row.project_id,
            type: row.type as ServiceEventType,
            data: JSON.parse(row.data),
            createdAt: row.created_at,
          };
          for (const s of this.subscribers) await s(event, ctx);
        },
      }),
    );
  }

  define<S extends TSchema>(def: JobDefinition<S>): void {
    this.defs.set(def.kind.type, {
      def: def as unknown as JobDefinition,
      check: compileSchema(def.kind.payload),
    });
  }
  get(type: string): Registered | undefined {
    return this.defs.get(type);
  }
  /** Subscribers must be idempotent: a dispatch is retried as a whole when one of them throws. */
  onServiceEvent(fn: ServiceEventSubscriber): void {
    this.subscribers.push(fn);
  }
}

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
      registry: this.registry,
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
