import { boundedCache } from "../../platform/cache.js";

/**
 * Kept answers of dashboards, as PostHog keeps a dashboard's results: per dashboard version, in
 * memory, one computation per version in flight. The caller's key is the version (results.ts), so
 * an edit is never answered from before it; the age decides the rest. An answer's `computedAt` says
 * when its computation started (the data is as of then), but its age counts from when it finished:
 * a computation that took a minute is not stale the moment it lands. The clock is the caller's
 * `now` (plus the real time the computation took), so tests move it without fake timers.
 */

/** Within this age an answer is returned as it is. */
export const FRESH_MS = 60_000;
/** Until this age a signed-in view gets the kept answer at once while it is recomputed. */
export const KEPT_MS = 15 * 60_000;
/** How long an answer stays for the public link, which never waits once one exists. */
const PUBLIC_KEPT_MS = 24 * 3_600_000;
/** Dashboard versions kept. */
const MAX_VERSIONS = 500;

/**
 * - `kept` (the signed-in view): fresh as is; older, up to 15 minutes, at once while a recomputation
 *   starts in the background; older or absent, computed and awaited.
 * - `public` (the shared link): any kept answer at once, recomputed in the background past a
 *   minute; only the very first view of a version waits (and concurrent first views share it). An
 *   anonymous caller never makes Lift compute a version more than once at a time, nor more often
 *   than once a minute.
 * - `new` (Refresh): computed and awaited (joining a computation already in flight).
 */
export type Want = "kept" | "public" | "new";

interface Entry<V> {
  /** the last computation that succeeded */
  answer?: V;
  /** when it finished, on the callers' clock */
  finishedAt?: number;
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
  // The TTL only gives memory back; what is served is decided by the age.
  private entries = boundedCache<string, Entry<V>>(MAX_VERSIONS, PUBLIC_KEPT_MS);

  async get(ask: Ask<V>): Promise<V> {
    const entry = this.entries.get(ask.key);
    const kept = entry?.answer;
    const age = kept ? ask.now - (entry.finishedAt ?? Date.parse(kept.computedAt)) : Number.POSITIVE_INFINITY;
    if (!kept || ask.want === "new") return this.run(ask);
    if (age < FRESH_MS) return kept;
    if (ask.want === "public" || age < KEPT_MS) {
      if (!entry.running) void this.run(ask).catch(ask.failed);
      return kept;
    }
    return this.run(ask);
  }

  /** The key's computation in flight, or a new one; a failed one is not kept. */
  private run({ key, now, compute }: Ask<V>): Promise<V> {
    const running = this.entries.get(key)?.running;
    if (running) return running;
    const startedReal = Date.now();
    const started = compute(new Date(now).toISOString()).then(
      (answer) => {
        this.settle(key, started, { answer, finishedAt: now + (Date.now() - startedReal) });
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

  private settle(key: string, done: Promise<V>, result?: { answer: V; finishedAt: number }) {
    const entry = this.entries.get(key);
    // Another computation may have started if this key was pushed out of the bound meanwhile.
    const running = entry?.running === done ? undefined : entry?.running;
    const next: Entry<V> = {
      answer: result?.answer ?? entry?.answer,
      finishedAt: result?.finishedAt ?? entry?.finishedAt,
      running,
    };
    if (next.answer || next.running) this.entries.set(key, next);
    else this.entries.delete(key);
  }
}
