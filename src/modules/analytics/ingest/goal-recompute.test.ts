import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { CONVERSION_RECOMPUTE_JOB } from "../../goals/service.js";
import { recomputeConversionsStep } from "./goal-recompute.js";

/**
 * History counts: a conversion goal created (or changed, or deleted) after its events were stored
 * is recomputed from them by a job, and every number that depends on "is this event a conversion"
 * follows: the goal's own summary, the any-goal rollups, attribution, breakdowns, growth goals.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
});
afterAll(async () => t.close());

const DAY = 86_400_000;
const NOW = Date.now();
/** Whole days back from today, at 09:00 UTC (the summary's 30d period holds them all). */
const daysAgo = (n: number, minutes = 0) =>
  Math.floor(NOW / DAY) * DAY - n * DAY + 9 * 3_600_000 + minutes * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Segment's batch API with the project's secret key, as an import from another tool sends it. */
async function batch(a: Tenant, messages: Record<string, unknown>[]) {
  const auth = { authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}` };
  const res = await a.post("/v1/batch", { batch: messages }, { as: "none", headers: auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
const page = (visitor: string, ts: number) => ({
  type: "page",
  anonymousId: visitor,
  properties: { url: "https://shop.example/?utm_source=news&utm_medium=email" },
  context: { userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36" },
  timestamp: iso(ts),
});
const track = (visitor: string, event: string, ts: number, properties: Record<string, unknown> = {}) => ({
  type: "track",
  anonymousId: visitor,
  event,
  properties,
  timestamp: iso(ts),
});

/** 12 visitors over 12 days; 8 sign up, 3 of them later buy (30 each). */
async function seedHistory(a: Tenant) {
  const messages: Record<string, unknown>[] = [];
  for (let i = 0; i < 12; i++) {
    messages.push(page(`v${i}`, daysAgo(i + 1)));
    if (i < 8) messages.push(track(`v${i}`, "signup", daysAgo(i + 1, 5)));
    if (i < 3) messages.push(track(`v${i}`, "purchase", daysAgo(i + 1, 9), { revenue: 30 }));
  }
  await batch(a, messages);
}

const summary = async (a: Tenant, goal?: string) => {
  const res = await a.get(`/api/analytics/summary?period=30d${goal ? `&goal=${goal}` : ""}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { conversions: number; convertedVisitors: number; revenue: number; visitors: number };
};
const credited = async (a: Tenant) => {
  const res = await a.get("/api/attribution/summary?period=30d&model=first_touch");
  expect(res.status).toBe(200);
  return (res.body.channels as { creditedConversions: number }[]).reduce(
    (s, c) => s + c.creditedConversions,
    0,
  );
};
const byType = async (a: Tenant) => {
  const res = await a.get("/api/analytics/breakdown?by=event_type&period=30d&limit=100");
  expect(res.status).toBe(200);
  return Object.fromEntries(
    (res.body.rows as { key: string; conversions: number }[]).map((r) => [r.key, r.conversions]),
  );
};
const recompute = async (a: Tenant, id: string) =>
  ((await a.get("/api/conversion-goals")).body as { id: string; recompute: unknown }[]).find(
    (g) => g.id === id,
  )?.recompute;

describe("a conversion goal created after its events", () => {
  it("counts every stored event once its recompute job has run, then follows an edit and a deletion", async () => {
    const a = await t.tenant();
    await seedHistory(a);
    const deadline = iso(NOW + 30 * DAY).slice(0, 10);
    const created = await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await recompute(a, id)).toMatchObject({ state: "queued", processed: 0 });
    const growth = await a.post("/api/goals", {
      metric: "Signup",
      target: 20,
      deadline,
      startDate: iso(daysAgo(30)).slice(0, 10),
    });
    expect(growth.status).toBe(201);

    await t.app.worker.drain();
    expect(await recompute(a, id)).toMatchObject({ state: "done", processed: 8, progress: 1 });
    expect(await summary(a, id)).toMatchObject({ conversions: 8, convertedVisitors: 8, visitors: 12 });
    expect(await summary(a)).toMatchObject({ conversions: 8, convertedVisitors: 8 });
    expect(await credited(a)).toBeCloseTo(8, 6);
    expect(await byType(a)).toMatchObject({ signup: 8 });
    // the growth goal counts the signups since its start date, not since the goal's creation
    expect((await a.get("/api/goals")).body[0]).toMatchObject({ id: growth.body.id, current: 8 });

    // Recounting again (safe to run twice) changes nothing.
    expect((await a.patch("/api/conversion-goals", { id, recompute: true })).status).toBe(200);
    await t.app.worker.drain();
    expect(await summary(a)).toMatchObject({ conversions: 8, convertedVisitors: 8 });
    expect(await credited(a)).toBeCloseTo(8, 6);

    // An edit of what it matches: the signups leave, the purchases come in.
    const edited = await a.patch("/api/conversion-goals", { id, eventType: "purchase" });
    expect(edited.status).toBe(200);
    await t.app.worker.drain();
    expect(await summary(a, id)).toMatchObject({ conversions: 3, convertedVisitors: 3, revenue: 90 });
    expect(await summary(a)).toMatchObject({ conversions: 3, revenue: 90 });
    expect(await credited(a)).toBeCloseTo(3, 6);
    const types = await byType(a);
    expect(types.purchase).toBe(3);
    expect(types.signup ?? 0).toBe(0);

    // Deleted: its conversions go with it.
    expect((await a.del(`/api/conversion-goals?id=${id}`)).status).toBe(200);
    await t.app.worker.drain();
    expect(await summary(a)).toMatchObject({ conversions: 0, convertedVisitors: 0, revenue: 0 });
    expect(await credited(a)).toBeCloseTo(0, 6);
    expect((await byType(a)).purchase ?? 0).toBe(0);
  });

  it("keeps a conversion another goal still matches when one goal goes, and $revenue events always", async () => {
    const a = await t.tenant();
    await seedHistory(a);
    await batch(a, [track("v0", "$revenue", daysAgo(2, 30), { revenue: 12 })]);
    const signup = (await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" })).body.id;
    const any = (await a.post("/api/conversion-goals", { name: "Any signup", eventType: "signup" })).body.id;
    await t.app.worker.drain();
    expect(await summary(a)).toMatchObject({ conversions: 9, revenue: 12 });
    expect(await summary(a, any)).toMatchObject({ conversions: 8 });
    expect((await a.del(`/api/conversion-goals?id=${signup}`)).status).toBe(200);
    await t.app.worker.drain();
    expect(await summary(a)).toMatchObject({ conversions: 9, revenue: 12 });
    expect(await summary(a, any)).toMatchObject({ conversions: 8 });
    expect(await credited(a)).toBeCloseTo(9, 6);
  });

  it("does not count twice the events that arrive while its job runs", async () => {
    const a = await t.tenant();
    await seedHistory(a);
    const id = (await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" })).body.id;
    const job = await t.app.db
      .selectFrom("jobs")
      .select("payload")
      .where("type", "=", CONVERSION_RECOMPUTE_JOB.type)
      .where("payload", "like", `%${id}%`)
      .executeTakeFirstOrThrow();
    const payload = JSON.parse(job.payload);
    // One page of one event, then live purchases (the processor counts them under the goal),
    // then the rest of the job: those are read by it too, and must count once.
    expect(await recomputeConversionsStep(t.app.deps, payload, { pageRows: 1, maxPages: 1 })).toBe(
      "continue",
    );
    expect(await recompute(a, id)).toMatchObject({ state: "running", processed: 1 });
    await batch(a, [
      track("v5", "purchase", daysAgo(0, 1), { revenue: 30 }),
      track("v6", "purchase", daysAgo(3, 20), { revenue: 30 }),
    ]);
    expect(await summary(a)).toMatchObject({ conversions: 3 });
    await t.app.worker.drain();
    expect(await recompute(a, id)).toMatchObject({ state: "done", processed: 5 });
    expect(await summary(a, id)).toMatchObject({ conversions: 5, revenue: 150 });
    expect(await summary(a)).toMatchObject({ conversions: 5, revenue: 150 });
    expect(await credited(a)).toBeCloseTo(5, 6);
  });
});
