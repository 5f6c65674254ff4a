import type { ProjectRef } from "../auth/principal.js";
import type { CrossedError } from "./crossing.js";

/** What the pool sends a reader thread: start a task; for a streamed one, the next chunk, or stop. */
export type ToWorker =
  | { kind: "start"; id: number; name: string; project: ProjectRef; input: unknown; stream: boolean }
  | { kind: "pull"; id: number }
  | { kind: "cancel"; id: number };

/**
 * What a reader thread answers: a task's result, a stream's chunk or its end, or an error; or that
 * it is about to use the analytics engine (which starts on first use).
 */
export type Answer =
  | { id: 0; ok: true; value: "engine" }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: true; value: { chunk: string } | { done: true } }
  | { id: number; ok: false; error: CrossedError };
