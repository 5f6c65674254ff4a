import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { BROWSER_UA } from "../analytics.testing.js";
import "../tables.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const DAY = 86_400_000;
const D0 = (Math.floor(Date.now() / DAY) - 10) * DAY;
const iso = (day: number) => new Date(D0 + day * DAY).toISOString().slice(0, 10);

type Retention = { interval: string; cohorts: { start: string; size: number; returned: number[] }[] };

/**
 * Days D0..D0+3 (hand-computed, interval day):
 *  ann: pageviews on D0 and D0+1, a signup on D0+3              → cohort D0, back on days 1 and 3
 *  ben: first pageview before D0, another on D0+1               → in no cohort (first start before)
 *  cat, one lead: c1's pageview on D0+1, c2's purchase on D0+2  → cohort D0+1, back on day 1
 *  dan: a signup on D0, his first pageview on D0+2              → cohort D0+2 (the start event decides)
 *  a crawler's pageview on D0                                   → left out
 */
async function seed(a: Tenant): Promise<void> {
  const send = async (visitorId: string, type: string, day: number, hour = 10, ua = BROWSER_UA) => {
    const res = await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        type,
        visitorId,
        url: "https://shop.example.com/",
        timestamp: new Date(D0 + day * DAY + hour * 3_600_000).toISOString(),
      },
      { as: "none", headers: { "user-agent": ua } },
    );
    expect(res.status).toBe(200);
  };
  await send("ann", "pageview", 0);
  await send("ann", "pageview", 1);
  await send("ann", "signup", 3);
  await send("ben", "pageview", -5);
  await send("ben", "pageview", 1);
  await send("c1", "pageview", 1);
  await send("c2", "purchase", 2);
  for (const visitorId of ["c1", "c2"])
    expect((await a.post("/api/identity", { visitorId, leadId: "cat" })).status).toBe(200);
  await send("dan", "signup", 0);
  await send("dan", "pageview", 2);
  await send("crawler", "pageview", 0, 10, BOT);
}

describe("GET /api/analytics/retention", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await t.tenant();
    await seed(a);
  });
  const get = (query: string) =>
    a.get<Retention>(`/api/analytics/retention?from=${iso(0)}&to=${iso(3)}&${query}`);

  it("cohorts by the first start event, returns by any event (hand-computed)", async () => {
    const res = await get("interval=day");
    expect(res.status).toBe(200);
    expect(res.body.cohorts).toEqual([
      { start: iso(0), size: 1, returned: [1, 1, 0, 1] },
      { start: iso(1), size: 1, returned: [1, 1, 0] },
      { start: iso(2), size: 1, returned: [1, 0] },
      { start: iso(3), size: 0, returned: [0] },
    ]);
  });

  it("a return event narrows the returns; a start event changes the cohorts", async () => {
    const purchases = await get("interval=day&returnEvent=purchase");
    expect(purchases.body.cohorts.map((c) => c.returned)).toEqual([[1, 0, 0, 0], [1, 1, 0], [1, 0], [0]]);
    const signups = await get("interval=day&startEvent=signup");
    expect(signups.body.cohorts.map((c) => [c.size, ...c.returned])).toEqual([
      [1, 1, 0, 1, 0],
      [0, 0, 0, 0],
      [0, 0, 0],
      [1, 1],
    ]);
  });

  it("weekly cohorts start on Mondays; bad queries are 400", async () => {
    const res = await get("interval=week");
    expect(res.body.interval).toBe("week");
    for (const c of res.body.cohorts) expect(new Date(`${c.start}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(res.body.cohorts.reduce((n, c) => n + c.size, 0)).toBe(3);
    for (const q of ["interval=month", "startEvent=", "period=1y"]) {
      const bad = await a.get<{ code: string }>(`/api/analytics/retention?${q}`);
      expect(bad.status, q).toBe(400);
      expect(bad.body.code).toBe("VALIDATION_ERROR");
    }
  });

  it("says which intervals the period cuts: a first week begun before it, a last one not over", async () => {
    type Marks = Retention & { partialFirst: boolean; partialLast: boolean };
    const ask = async (from: number, to: number, interval: string) =>
      (await a.get<Marks>(`/api/analytics/retention?from=${iso(from)}&to=${iso(to)}&interval=${interval}`))
        .body;
    const weekday = (day: number) => new Date(D0 + day * DAY).getUTCDay();
    // Whole days in the past: nothing is cut.
    expect(await ask(0, 3, "day")).toMatchObject({ partialFirst: false, partialLast: false });
    // Up to today (day 10): today is not over.
    expect(await ask(0, 10, "day")).toMatchObject({ partialFirst: false, partialLast: true });
    // Weeks: cut at the start unless the period starts on a Monday, at the end unless it ends on a
    // Sunday before today.
    for (const [from, to] of [
      [0, 3],
      [1, 8],
      [-2, 9],
    ] as const) {
      const week = await ask(from, to, "week");
      expect(week.partialFirst, `${iso(from)}…${iso(to)}`).toBe(weekday(from) !== 1);
      expect(week.partialLast, `${iso(from)}…${iso(to)}`).toBe(weekday(to) !== 0);
    }
    const monday = [0, 1, 2, 3, 4, 5, 6].find((d) => weekday(d) === 1)!;
    const whole = await ask(monday - 7, monday - 1, "week");
    expect(whole).toMatchObject({ partialFirst: false, partialLast: false });
    expect(whole.cohorts).toHaveLength(1);
  });

  it("counts from the stored events themselves (the analytics engine), server events and a lead's visitors included", async () => {
    const b = await t.tenant();
    await seed(b);
    // A server event of the lead cat (a batch userId) on day 3: cat comes back on day 3 too.
    const server = await b.post(
      "/api/events",
      {
        projectKey: b.publicKey,
        userId: "cat",
        events: [
          {
            type: "invoice",
            url: "https://shop.example.com/billing",
            timestamp: new Date(D0 + 3 * DAY + 9 * 3_600_000).toISOString(),
          },
        ],
      },
      { as: "none", headers: { "user-agent": BROWSER_UA } },
    );
    expect(server.status).toBe(200);
    // Nothing but the events answers: a per-day index of who did what is not read.
    await t.app.db.deleteFrom("analytics_activity").where("project_id", "=", b.projectId).execute();
    const res = await b.get<Retention>(`/api/analytics/retention?from=${iso(0)}&to=${iso(3)}&interval=day`);
    expect(res.status).toBe(200);
    expect(res.body.cohorts).toEqual([
      { start: iso(0), size: 1, returned: [1, 1, 0, 1] },
      { start: iso(1), size: 1, returned: [1, 1, 1] },
      { start: iso(2), size: 1, returned: [1, 0] },
      { start: iso(3), size: 0, returned: [0] },
    ]);
  });
});
