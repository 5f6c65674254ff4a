import { type Static, type TSchema, Type } from "@sinclair/typebox";
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../../config.js";
import type { DbHandle } from "../db/index.js";

export interface JobContext {
  handle: DbHandle;
  config: Config;
  log: FastifyBaseLogger;
  /** 1 on the first run. */
  attempt: number;
  jobId: string;
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
