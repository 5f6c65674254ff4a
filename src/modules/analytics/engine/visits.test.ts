import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { insertMissing } from "./append.js";
import { ENGINE_DDL, SESSION_COLUMNS } from "./ddl.js";
import { appendEventsAndVisits, pagesListSql } from "./visits.js";

/**
 * The engine's `visits` (one row per web session, kept by the copy as events arrive): the same row
 * as aggregating all of the session's web events at once, with its session's values, whatever pages
 * and order they came in; a
 * rebuild gives the same table; an erasure takes the person's visits away; and the web view reads
 * them without changing an answer, a visit with events outside the question's span included.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
});
afterAll(async () => t.close());

const SHOP = "https://shop.example.com";
const MIN = 60_000;
const DAY = 86_400_000;
type Sent = { type: string; path: string; at: number; data?: Record<string, unknown> };

/** Each event on its own, as a page's snippet sends them (a batch is a server's). */
const send = async (a: Tenant, visitorId: string, events: Sent[], ua = BROWSER_UA) => {
  for (const e of events) {
    const res = await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        visitorId,
        type: e.type,
        url: `${SHOP}${e.path}`,
        timestamp: new Date(e.at).toISOString(),
        ...(e.data ? { data: e.data } : {}),
      },
      { as: "none", headers: { "user-agent": ua } },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
};

const COLUMNS = `session_id, visitor_id, pageviews, list_sort(${pagesListSql("pages")}) as pages, first_ts, last_ts, landing_url,
  entry_page, exit_page, country, session_ts, channel, source, device, browser, os`;
const visitsOf = (projectId: string) =>
  t.app.deps.engine.query<Record<string, unknown>>(
    `select ${COLUMNS} from visits where project_id = $1 order by session_id`,
    [projectId],
  );

/**
 * Each session's facts from all of its web events at once, as the web view aggregated them before
 * the copy kept visits (arg-min/max by time; of events at the same time, the one copied first),
 * with its row in `sessions`.
 */
const aggregated = (projectId: string) =>
  t.app.deps.engine.query<Record<string, unknown>>(
    `select f.*, s.ts as session_ts, s.channel, s.source, s.device, s.browser, s.os
    from (select session_id, arg_min(visitor_id, ts) as visitor_id,
      (count(*) filter (where type = 'pageview'))::integer as pageviews,
      list_sort(coalesce(list(page) filter (where type = 'pageview'), [])) as pages, min(ts) as first_ts,
      max(ts) as last_ts, arg_min(url, ts) as landing_url,
      arg_min(page, ts) filter (where type = 'pageview') as entry_page,
      arg_max(page, ts) filter (where type = 'pageview') as exit_page,
      arg_min(country, ts) filter (where country is not null) as country
    from (select *, regexp_replace(url, '(?s)[?#].*$', '') as page,
        json_extract_string(data, '$."$country"') as country
      from events where project_id = $1 and not is_bot and not is_server and session_id <> '')
    group by session_id) f join sessions s on s.project_id = $1 and s.session_id = f.session_id
    order by f.session_id`,
    [projectId],
  );

describe("the engine's visits", () => {
  it("gives each session the row of all its events at once, over two syncs and out of time order; a rebuild gives the same", async () => {
    const a = await t.tenant();
    const at = Date.now() - 20 * MIN;
    await send(a, "x", [
      { type: "pageview", path: "/b?ref=1", at },
      { type: "click", path: "/b", at: at + MIN, data: { $country: "FR" } },
    ]);
    await send(a, "y", [{ type: "pageview", path: "/solo", at }]);
    // A query syncs the copy: the next events arrive in a later page.
    expect((await visitsOf(a.projectId)).map((v) => v.pageviews)).toEqual([1, 1]);
    // Backdated within the session's gap, and two page views at one time (the first sent wins the exit).
    await send(a, "x", [
      { type: "pageview", path: "/a?utm_source=news", at: at - 5 * MIN, data: { $country: "DE" } },
      { type: "pageview", path: "/d", at: at + 2 * MIN },
      { type: "pageview", path: "/e#top", at: at + 2 * MIN },
    ]);
    await send(a, "x", [{ type: "pageview", path: "/bot", at: at + 3 * MIN }], "Googlebot/2.1");
    const views = (rows: Record<string, unknown>[]) =>
      Object.fromEntries(rows.map((v) => [v.visitor_id, v.pageviews]));
    expect(views(await visitsOf(a.projectId))).toEqual({ x: 4, y: 1 });
    // Ties with the held row, in a later page: the row keeps what was copied first.
    await send(a, "x", [
      { type: "pageview", path: "/f", at: at + 2 * MIN },
      { type: "click", path: "/g", at: at - 5 * MIN, data: { $country: "IT" } },
    ]);
    const kept = await visitsOf(a.projectId);
    const x = kept.find((v) => v.visitor_id === "x");
    expect(x).toMatchObject({
      pageviews: 5,
      pages: ["/a", "/b", "/d", "/e", "/f"].map((path) => `${SHOP}${path}`),
      channel: "direct",
      first_ts: at - 5 * MIN,
      last_ts: at + 2 * MIN,
      landing_url: `${SHOP}/a?utm_source=news`,
      entry_page: `${SHOP}/a`,
      exit_page: `${SHOP}/d`,
      country: "DE",
    });
    expect(kept).toEqual(await aggregated(a.projectId));

    const engine = t.app.deps.engine as unknown as { rebuild(p: (n: number) => void): Promise<number> };
    await engine.rebuild(() => {});
    expect(await visitsOf(a.projectId)).toEqual(kept);
  });

  it("takes an erased person's visits away, and keeps the others'", async () => {
    const a = await t.tenant();
    const at = Date.now() - 10 * MIN;
    await send(a, "gone", [{ type: "pageview", path: "/one", at }]);
    await send(a, "kept", [{ type: "pageview", path: "/two", at }]);
    expect(await visitsOf(a.projectId)).toHaveLength(2);
    expect((await a.del("/api/identity?visitorId=gone")).status).toBe(200);
    const left = await visitsOf(a.projectId);
    expect(left.map((v) => v.visitor_id)).toEqual(["kept"]);
    expect(left).toEqual(await aggregated(a.projectId));
  });

  it("counts a goal's conversions in their visits when a recount finds them", async () => {
    const a = await t.tenant();
    const at = Date.now() - 10 * MIN;
    await send(a, "s1", [
      { type: "pageview", path: "/", at },
      { type: "signup", path: "/join", at: at + MIN },
    ]);
    await send(a, "s2", [{ type: "pageview", path: "/", at }]);
    // The goal comes after its events: a recount records their conversions.
    const goal = await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    expect(goal.status).toBe(201);
    await t.app.worker.drain();
    const res = await a.post("/api/analytics/web", { period: "7d", lists: [], goal: goal.body.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.headline.conversions.value).toBe(1);
    expect(res.body.headline.conversionRate.value).toBe(0.5);
  });

  it("reads a visit's events within the question's span: from its start to a day after its end", async () => {
    const a = await t.tenant();
    const from = (Math.floor(Date.now() / DAY) - 6) * DAY;
    // A visit that starts just inside "7d", then an event backdated into it from before the start.
    await send(a, "v", [{ type: "pageview", path: "/inside", at: from + 10 * MIN }]);
    await send(a, "v", [{ type: "pageview", path: "/before", at: from - 10 * MIN }]);
    // A visit that starts before the range and runs into it: the previous period's.
    await send(a, "w", [
      { type: "pageview", path: "/earlier", at: from - 20 * MIN },
      { type: "pageview", path: "/crossing", at: from + 5 * MIN },
    ]);
    const res = await a.post("/api/analytics/web", { period: "7d", lists: ["entry_pages", "pages"] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const chart = res.body.chart as { pageviews: number; visits: number }[];
    expect(chart.reduce((n, p) => n + p.visits, 0)).toBe(1);
    // The period's questions read its span: the page view before it is not the visit's.
    expect(chart.reduce((n, p) => n + p.pageviews, 0)).toBe(1);
    expect(res.body.lists.entry_pages.rows).toMatchObject([{ value: `${SHOP}/inside`, pageviews: 1 }]);
    expect(res.body.lists.pages.rows).toMatchObject([{ value: `${SHOP}/inside`, pageviews: 1 }]);
    // The headline reads both periods at once, whose span holds it.
    expect(res.body.headline.pageviews.value).toBe(2);
    expect(res.body.headline.visitDuration.value).toBe(20 * 60);
    expect(res.body.headline.visits.previous).toBe(1);
    expect(res.body.headline.pageviews.previous).toBe(2);
  });
});

/** A browser page view of session s1 as the copy reads it from the store. */
const event = (id: string, ts: number, url = `${SHOP}/${id}`) => ({
  id,
  project_id: "p",
  visitor_id: "v",
  lead_id: null,
  type: "pageview",
  url,
  referrer: null,
  data: "{}",
  ts,
  received_at: ts,
  session_id: "s1",
  channel: "direct",
  source: null,
  is_bot: 0,
  is_server: 0,
});
const kinds = { ts: "bigint", received_at: "bigint", is_bot: "boolean", is_server: "boolean" } as const;

describe("a visit's session values", () => {
  it("are taken when the session's row comes after the visit's first events", async () => {
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    for (const ddl of ENGINE_DDL) await duck.run(ddl);
    const row = async () =>
      (
        await duck.runAndReadAll(
          `select session_ts, channel, device, pageviews, list_sort(${pagesListSql("pages")}) as p from visits`,
        )
      ).getRowObjectsJS();
    // A page without the session's row: the visit is held without its values (no web view reads it).
    await appendEventsAndVisits(duck, [event("a", 1000)], kinds, null);
    expect(await row()).toEqual([
      { session_ts: null, channel: null, device: null, pageviews: 1, p: [`${SHOP}/a`] },
    ]);
    // A later page copies the session's row: the held visit takes its values, and keeps them.
    const session = {
      project_id: "p",
      session_id: "s1",
      visitor_id: "v",
      channel: "search",
      ts: 1000,
      device: "mobile",
    };
    for (const [i, values] of [session, { ...session, channel: "email", device: "desktop" }].entries()) {
      const staged = await insertMissing(
        duck,
        "sessions",
        SESSION_COLUMNS,
        ["project_id", "session_id"],
        [values],
        {
          ts: "bigint",
        },
      );
      await appendEventsAndVisits(duck, [event(`b${i}`, 2000 + i)], kinds, staged);
    }
    expect(await row()).toEqual([
      {
        session_ts: 1000n,
        channel: "search",
        device: "mobile",
        pageviews: 3,
        p: [`${SHOP}/a`, `${SHOP}/b0`, `${SHOP}/b1`],
      },
    ]);
    duck.closeSync();
  });
});

describe("a visit's pages", () => {
  it("hold a page with a line break as one page (its URL encoding)", async () => {
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    for (const ddl of ENGINE_DDL) await duck.run(ddl);
    await appendEventsAndVisits(duck, [event("a", 1000, `${SHOP}/a\nb`), event("c", 1001)], kinds, null);
    await appendEventsAndVisits(duck, [event("c", 1002)], kinds, null);
    const pages = (
      await duck.runAndReadAll(`select list_sort(${pagesListSql("pages")}) as p from visits`)
    ).getRowObjectsJS();
    expect(pages).toEqual([{ p: [`${SHOP}/a%0Ab`, `${SHOP}/c`, `${SHOP}/c`] }]);
    duck.closeSync();
  });
});
