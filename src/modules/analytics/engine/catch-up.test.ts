import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";

/**
 * The engine's first catch-up over a store that already holds many events (a first start, an
 * upgrade that rebuilds the copy): a report does not wait for all of it, past its deadline, but is
 * answered 503 with Retry-After at once; once the copy has caught up, reports answer. Here a
 * catch-up is any copy past 20,000 events (one page), over 60,000 stored before the engine starts.
 */
const STORED = 60_000;
let t: TestApp;
let a: Tenant;
const trends = () =>
  a.post("/api/analytics/trends", { period: "7d", series: [{ event: "signup", measure: "total" }] });
beforeAll(async () => {
  t = await startTestApp({
    rateLimits: { events: 0, reads: 0, writes: 0 },
    // No background sync while the backlog is stored (a slow machine takes over a minute for it).
    engine: { memoryMb: 256, threads: 1, pollMs: 3_600_000, catchUpEvents: 20_000 },
  });
  a = await t.tenant();
  // The engine's thread and the report's read worker start on first use. Started here by a report
  // over the empty store, the test's sync below reaches a running thread at once, ahead of the
  // reports it sends; otherwise it waited for the thread's start beside the first report's query,
  // which the thread could take first: that query's sync then copied the backlog, and the test's
  // sync, queued behind it, found nothing.
  expect((await trends()).body.series[0].total).toBe(0);
  const at = new Date(Date.now() - 3_600_000).toISOString();
  for (let sent = 0; sent < STORED; sent += 1000) {
    const events = Array.from({ length: 1000 }, (_, i) => ({
      type: "signup",
      visitorId: `v${sent + i}`,
      url: "https://shop.example/",
      timestamp: at,
    }));
    const res = await a.post("/api/events", { projectKey: a.apiKey, events }, { as: "none" });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  }
}, 120_000);
afterAll(async () => t.close());

describe("the analytics engine catching up with a stored backlog", () => {
  it("answers reports 503 with Retry-After meanwhile, then the whole count", async () => {
    const engine = t.app.deps.engine;
    let done = false;
    const caughtUp = engine.sync!().then((n) => {
      done = true;
      return n;
    });
    const refusals: { status: number; retryAfter: unknown; code: string; error: string }[] = [];
    while (!done) {
      const res = await trends();
      if (res.status === 503)
        refusals.push({
          status: res.status,
          retryAfter: res.headers["retry-after"],
          code: res.body.code,
          error: res.body.error,
        });
      else expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect(await caughtUp).toBeGreaterThanOrEqual(STORED);
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]).toMatchObject({ status: 503, retryAfter: "10", code: "UNAVAILABLE" });
    expect(refusals[0]!.error).toMatch(/catching up with the stored events \([\d,]+ copied so far\)/);
    const after = await trends();
    expect(after.status).toBe(200);
    expect(after.body.series[0].total).toBe(STORED);
  }, 120_000);
});
