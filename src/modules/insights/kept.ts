import { boundedCache } from "../../platform/cache.js";

/**
 * Kept answers of dashboards (issue 34: a dashboard within 100 ms), as PostHog keeps a dashboard's
 * results: per dashboard version, in memory, one computation per version in flight. The caller's
 * key is the version (results.ts), so an edit is never answered from before it; the age decides
 * the rest. An answer's age is measured from its `computedAt` (when its computation started), so
 * the clock is the caller's `now` and tests move it without fake timers.
 */

/** Within this age an answer is returned as it is. */
export const FRESH_MS = 60_000;
/** Until this age a signed-in view gets the kept answer at once while it is recomputed. */
export const KEPT_MS = 15 * 60_000;
/** Dashboard versions kept (the bound of the shared link's cache before, kept). */
const MAX_VERSIONS = 500;

/**
 * - `kept` (the signed-in view): fresh as is; older, up to 15 minutes, at once while a recomputation
 *   starts in the background; older or absent, computed and awaited.
 * - `fresh` (the public link): fresh as is; otherwise computed and awaited. An anonymous caller
 *   never gets an answer over a minute old, and never makes Lift compute more than once a minute.
 * - `new` (Refresh): computed and awaited (joining a computation already in flight).
 */
export type Want = "kept" | "fresh" | "new";

interface Entry<V> {
  /** the last computation that succeeded */
  answer?: V;
  /** the computation in flight, at most one per key */
  running?: Promise<V>;
}

export interface Ask<V> {
  key: string;
  want: Want;
  now: number;
  /** runs the version's computation; the answer carries `computedAt` as given */
  compute: (computedAt: string) => Promise<V>;
  /** a background computation failed (the kept answer stays; the next request tries again) */
  failed: (err: unknown) => void;
}

export class KeptAnswers<V extends { computedAt: string }> {
  // The 15 minutes as a TTL only give memory back; what is served is decided by `computedAt`.
  private entries = boundedCache<string, Entry<V>>(MAX_VERSIONS, KEPT_MS);

  async get(ask: Ask<V>): Promise<V> {
    const entry = this.entries.get(ask.key);
    const kept = entry?.answer;
    const age = kept ? ask.now - Date.parse(kept.computedAt) : Number.POSITIVE_INFINITY;
    if (kept && ask.want !== "new" && age < FRESH_MS) return kept;
    if (kept && ask.want === "kept" && age < KEPT_MS) {
      if (!entry?.running) void this.run(ask).catch(ask.failed);
      return kept;
    }
    return this.run(ask);
  }

  /** The key's computation in flight, or a new one; a failed one is not kept. */
  private run({ key, now, compute }: Ask<V>): Promise<V> {
    const running = this.entries.get(key)?.running;
    if (running) return running;
    const started = compute(new Date(now).toISOString()).then(
      (answer) => {
        this.settle(key, started, answer);
        return answer;
      },
      (err: unknown) => {
        this.settle(key, started);
        throw err;
      },
    );
    this.entries.set(key, { ...this.entries.get(key), running: started });
    return started;
  }

  private settle(key: string, done: Promise<V>, answer?: V) {
    const entry = this.entries.get(key);
    // Another computation may have started if this key was pushed out of the bound meanwhile.
    const running = entry?.running === done ? undefined : entry?.running;
    const next = { answer: answer ?? entry?.answer, running };
    if (next.answer || next.running) this.entries.set(key, next);
    else this.entries.delete(key);
  }
}
