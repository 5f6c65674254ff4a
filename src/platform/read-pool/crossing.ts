import { AppError, type ErrorCode } from "../errors.js";

/**
 * An error thrown by a task in a worker, as it crosses back: a refusal the caller should see
 * (`AppError`: its code, message, headers and details) stays one; anything else is a failure,
 * answered 500 by the one handler, which logs the worker's stack.
 */
export type CrossedError =
  | {
      kind: "app";
      code: ErrorCode;
      message: string;
      headers: Record<string, string>;
      details: Record<string, unknown>;
    }
  | { kind: "failure"; name: string; message: string; stack?: string };

export function toCrossed(err: unknown): CrossedError {
  if (err instanceof AppError)
    return { kind: "app", code: err.code, message: err.message, headers: err.headers, details: err.details };
  const e = err instanceof Error ? err : new Error(String(err));
  return { kind: "failure", name: e.name, message: e.message, stack: e.stack };
}

export function fromCrossed(c: CrossedError): Error {
  if (c.kind === "app") return new AppError(c.code, c.message, c.headers, c.details);
  const err = new Error(`read worker: ${c.message}`);
  err.name = c.name;
  if (c.stack) err.stack = `${err.name}: ${err.message}\n(in the read worker)\n${c.stack}`;
  return err;
}
