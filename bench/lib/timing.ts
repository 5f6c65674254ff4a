/**
 * `runs` timed calls of `fn` (ms, sorted), each after `before(i)` if given (untimed): the caller
 * warms up first as its question needs.
 */
export async function timedRuns(
  fn: () => Promise<unknown>,
  runs: number,
  before?: (i: number) => Promise<unknown>,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    await before?.(i);
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

/** The `f` quantile (0..1) of sorted times. */
export const quantile = (sorted: number[], f: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))]!;
