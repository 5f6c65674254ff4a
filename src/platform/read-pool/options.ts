/** The read pool's settings (READ_* in src/config.ts; docs/deploy.md). */
export interface ReadPoolOptions {
  /** worker threads (0: every task runs inline on the caller's thread) */
  workers: number;
  /** tasks a worker interleaves (they wait on the database in turn) */
  perWorker: number;
  /** tasks waiting for a worker */
  maxQueue: number;
  /** tasks of one project waiting or running */
  perProject: number;
  /** default deadline of a task, queue included; of each chunk of a streamed one */
  timeoutMs: number;
  /** V8 heap of each worker */
  memoryMb: number;
  /** PostgreSQL connections of each worker */
  pgConnections: number;
}
