import { describe, expect, it, vi } from "vitest";
import { type Ask, FRESH_MS, KEPT_MS, KeptAnswers, type Want } from "./kept.js";

/** The keeping rules alone: ages, one computation in flight, failures not kept. */
interface Answer {
  computedAt: string;
  n: number;
}

/**
 * A computation the test settles by hand, counting how many were started, and `ask`, a request for
 * key "k" computed by it whose background failures land in `failures`.
 */
function computations() {
  const started: { computedAt: string; resolve: (n: number) => void; reject: (e: Error) => void }[] = [];
  const failures: unknown[] = [];
  const compute = (computedAt: string) =>
    new Promise<Answer>((resolve, reject) => {
      started.push({ computedAt, resolve: (n) => resolve({ computedAt, n }), reject });
    });
  const ask = (want: Want, now: number): Ask<Answer> => ({
    key: "k",
    want,
    now,
    compute,
    failed: (e) => failures.push(e),
  });
  return { started, compute, failures, ask };
}

const T0 = Date.parse("2025-06-02T10:00:00.000Z");

describe("KeptAnswers", () => {
  it("serves a fresh answer as is, a stale one at once while one recomputation runs, an old one awaited", async () => {
    const kept = new KeptAnswers<Answer>();
    const { started, failures, ask } = computations();

    const first = kept.get(ask("kept", T0));
    started[0]!.resolve(1);
    expect(await first).toEqual({ computedAt: new Date(T0).toISOString(), n: 1 });
    expect(await kept.get(ask("kept", T0 + FRESH_MS - 1))).toMatchObject({ n: 1 });
    expect(started).toHaveLength(1);

    // stale: the old answer at once, one background computation however many ask
    expect(await kept.get(ask("kept", T0 + FRESH_MS))).toMatchObject({ n: 1 });
    expect(await kept.get(ask("kept", T0 + FRESH_MS + 10))).toMatchObject({ n: 1 });
    expect(started).toHaveLength(2);
    started[1]!.resolve(2);
    await new Promise((r) => setImmediate(r));
    expect(await kept.get(ask("kept", T0 + FRESH_MS + 20))).toMatchObject({ n: 2 });

    // past 15 minutes the caller waits for the new answer
    // 15 minutes after the second answer finished (ages count from a finish), with margin
    const late = T0 + FRESH_MS + KEPT_MS + 1_000;
    const waited = kept.get(ask("kept", late));
    expect(started).toHaveLength(3);
    started[2]!.resolve(3);
    expect(await waited).toEqual({ computedAt: new Date(late).toISOString(), n: 3 });
    expect(failures).toEqual([]);
  });

  it("the public link waits only for a version's first answer, then never: stale answers at once, one recomputation", async () => {
    const kept = new KeptAnswers<Answer>();
    const { started, ask } = computations();
    const first = kept.get(ask("public", T0));
    const joined = kept.get(ask("public", T0 + 1));
    expect(started).toHaveLength(1);
    started[0]!.resolve(1);
    expect(await joined).toBe(await first);
    // hours later, still at once: the kept answer, while one background computation runs
    const later = T0 + 5 * 3_600_000;
    expect(await kept.get(ask("public", later))).toMatchObject({ n: 1 });
    expect(await kept.get(ask("public", later + 1))).toMatchObject({ n: 1 });
    expect(started).toHaveLength(2);
    started[1]!.resolve(2);
    await new Promise((r) => setImmediate(r));
    expect(await kept.get(ask("public", later + 2))).toMatchObject({ n: 2 });
    expect(started).toHaveLength(2);
  });

  it("`new` joins the computation in flight", async () => {
    const kept = new KeptAnswers<Answer>();
    const { started, ask } = computations();
    const first = kept.get(ask("new", T0));
    const joined = kept.get(ask("new", T0 + 1));
    started[0]!.resolve(1);
    expect(await joined).toBe(await first);
    expect(started).toHaveLength(1);
  });

  it("an answer's age counts from when its computation finished, not from when it started", async () => {
    const kept = new KeptAnswers<Answer>();
    const started: { resolve: (n: number) => void }[] = [];
    let realNow = T0;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => realNow);
    try {
      const slow = (computedAt: string) =>
        new Promise<Answer>((resolve) => started.push({ resolve: (n) => resolve({ computedAt, n }) }));
      const ask = (now: number): Ask<Answer> => ({
        key: "k",
        want: "kept",
        now,
        compute: slow,
        failed: () => {},
      });
      const first = kept.get(ask(T0));
      // the computation takes 55 s of real time
      realNow = T0 + 55_000;
      started[0]!.resolve(1);
      await first;
      // 10 s after it finished (65 s after it started) it is still fresh: no recomputation
      expect(await kept.get(ask(T0 + 65_000))).toMatchObject({ n: 1 });
      expect(started).toHaveLength(1);
      // a minute after it finished, it is stale
      expect(await kept.get(ask(T0 + 55_000 + FRESH_MS))).toMatchObject({ n: 1 });
      expect(started).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
  });

  it("does not keep a failed computation: its callers get the error, a background one is reported once", async () => {
    const kept = new KeptAnswers<Answer>();
    const { started, failures, ask } = computations();
    const failing = kept.get(ask("kept", T0));
    started[0]!.reject(new Error("database gone"));
    await expect(failing).rejects.toThrow("database gone");
    // nothing kept: the next caller computes
    const second = kept.get(ask("kept", T0 + 1));
    expect(started).toHaveLength(2);
    started[1]!.resolve(2);
    expect(await second).toMatchObject({ n: 2 });

    // a failed background run leaves the stale answer, and the next request tries again
    expect(await kept.get(ask("kept", T0 + FRESH_MS + 1))).toMatchObject({ n: 2 });
    expect(await kept.get(ask("kept", T0 + FRESH_MS + 2))).toMatchObject({ n: 2 });
    expect(started).toHaveLength(3);
    started[2]!.reject(new Error("timeout"));
    await new Promise((r) => setImmediate(r));
    expect(failures).toEqual([new Error("timeout")]);
    expect(await kept.get(ask("kept", T0 + FRESH_MS + 3))).toMatchObject({ n: 2 });
    expect(started).toHaveLength(4);
  });

  it("keys are apart: another version computes its own answer", async () => {
    const kept = new KeptAnswers<Answer>();
    const { started, compute } = computations();
    const one = kept.get({ key: "v1", want: "kept", now: T0, compute, failed: () => {} });
    const two = kept.get({ key: "v2", want: "kept", now: T0, compute, failed: () => {} });
    started[0]!.resolve(1);
    started[1]!.resolve(2);
    expect([(await one).n, (await two).n]).toEqual([1, 2]);
  });
});
