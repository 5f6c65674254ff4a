import type { TSchema, Static } from "@sinclair/typebox";
import { newId } from "../crypto.js";
import type { DbOrTrx } from "../db/index.js";
import "../tables.js";
import type { JobKind } from "./kinds.js";

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
