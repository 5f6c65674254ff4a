import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Static, TSchema } from "@sinclair/typebox";
import { newId } from "../crypto.js";
import type { Db, DbOrTrx, Trx } from "../db/index.js";
import type { JobKind } from "./kinds.js";

/** A dead process's job is taken over within this time (within 30 s). */
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
  async create(trx: Trx, uniqueKey?: string): Promise<void> {
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
  keepAlive(db: Db, log?: FastifyBaseLogger): () => void {
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
