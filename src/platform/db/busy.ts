/**
 * Runs `fn` (a synchronous SQLite call) again while it fails with SQLITE_BUSY, up to `attempts`
 * times, sleeping `waitMs` between tries: for the locks a second process starting on the same
 * file can meet that busy_timeout does not cover, or covers for less than a migration takes.
 */
export function retryWhileBusy<T>(
  fn: () => T,
  { attempts, waitMs }: { attempts: number; waitMs: number },
): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return fn();
    } catch (err) {
      if ((err as { code?: string }).code !== "SQLITE_BUSY" || attempt >= attempts) throw err;
      if (waitMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, waitMs);
    }
  }
}
