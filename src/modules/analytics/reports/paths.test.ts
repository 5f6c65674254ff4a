import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { seedFilterProject } from "../filters/filter-fixture.testing.js";
import { BROWSER_UA } from "../analytics.testing.js";
import { pathSql } from "../engine/paths-sql.js";
import { pathOf } from "./paths.js";

let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  await seedFilterProject(a);
});
afterAll(async () => t.close());

const paths = async (body: Record<string, unknown>) => {
  const res = await a.post("/api/analytics/paths", body);
  expect(res.status).toBe(200);
  return res.body;
};

/** A browser's page view of `path` on the shop, stored (200). */
async function viewOf(b: Tenant, visitorId: string, path: string, timestamp?: string) {
  const body = {
    projectKey: b.publicKey,
    type: "pageview",
    visitorId,
    url: `https://shop.example.com${path}`,
    timestamp,
  };
  const res = await b.post("/api/events", body, { as: "none", headers: { "user-agent": BROWSER_UA } });
  expect(res.status).toBe(200);
}

describe("POST /api/analytics/paths (hand-computed, filter-fixture.testing.ts)", () => {
  it("after a page: each session's steps from its first visit of it, with drop-off and the flow", async () => {
    const p = await paths({ start: { event: "pageview", page: "/pricing" }, steps: 3 });
    // phone: /pricing → /checkout → purchase; laptop: / → /pricing (then nothing); mac: /pricing → /docs
    expect(p.sessions).toBe(3);
    expect(p.levels).toEqual([
      { step: 1, sessions: 2, dropOff: 1 },
      { step: 2, sessions: 1, dropOff: 1 },
      { step: 3, sessions: 0, dropOff: 1 },
    ]);
    expect(p.paths).toEqual([
      { nodes: ["/checkout", "purchase"], sessions: 1 },
      { nodes: ["/docs"], sessions: 1 },
    ]);
    expect(p.links).toEqual([
      { step: 1, from: "/pricing", to: "/checkout", sessions: 1 },
      { step: 1, from: "/pricing", to: "/docs", sessions: 1 },
      { step: 2, from: "/checkout", to: "purchase", sessions: 1 },
    ]);
  });

  it("before an event: the steps that led to it, nearest first", async () => {
    const p = await paths({ start: { event: "purchase" }, direction: "before", steps: 2 });
    expect(p.sessions).toBe(1);
    expect(p.paths).toEqual([{ nodes: ["/checkout", "/pricing"], sessions: 1 }]);
    expect(p.links.map((l: { from: string; to: string }) => `${l.from}>${l.to}`)).toEqual([
      "purchase>/checkout",
      "/checkout>/pricing",
    ]);
  });

  it("takes the report filter and a wildcard start", async () => {
    const desktop = await paths({
      start: { event: "pageview", page: "/pri*" },
      filter: [{ key: "device", op: "is", value: "desktop" }],
    });
    expect(desktop.sessions).toBe(2);
    expect(desktop.paths).toEqual([{ nodes: ["/docs"], sessions: 1 }]);
    const none = await paths({ start: { event: "signup" } });
    expect([none.sessions, none.paths, none.links]).toEqual([0, [], []]);
  });

  it("refuses what it cannot bound with a 400 naming the field", async () => {
    const res = await a.post("/api/analytics/paths", { start: { event: "pageview" }, steps: 6 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^body\.steps must be/);
    const noStart = await a.post("/api/analytics/paths", {});
    expect(noStart.body.error).toBe("body.start is required");
    const wide = await a.post("/api/analytics/paths", {
      start: { event: "pageview" },
      from: "2020-01-01",
      to: "2030-01-01",
    });
    expect(wide.status).toBe(400);
  });

  it("takes event and person conditions: every step's event meets them, and the session's person", async () => {
    // Pageviews only: phone's purchase is no step, so its path ends at /checkout.
    const views = await paths({
      start: { event: "pageview", page: "/pricing" },
      filter: [{ key: "event", op: "is", value: "pageview" }],
    });
    expect(views.paths).toEqual([
      { nodes: ["/checkout"], sessions: 1 },
      { nodes: ["/docs"], sessions: 1 },
    ]);
    const free = await paths({
      start: { event: "pageview", page: "/pricing" },
      filter: [{ key: "lead.plan", op: "is", value: "free" }],
    });
    expect([free.sessions, free.paths]).toEqual([1, [{ nodes: ["/docs"], sessions: 1 }]]);
  });

  it("reads a page's path from a URL", () => {
    expect(pathOf("https://a.example/x/y?q=1#h")).toBe("/x/y");
    expect(pathOf("https://a.example")).toBe("/");
    expect(pathOf("/relative?x")).toBe("/relative");
  });

  it("reads the same path from a URL in the engine's SQL", async () => {
    const urls = [
      "https://a.example/x/y?q=1#h",
      "https://a.example",
      "https://a.example/",
      "https://a.example?x=/y",
      "https://a.example#/frag",
      "https://a.example/a#h?q",
      "https://a.example/a?q#h",
      "http://a.example:8080/p/",
      "/relative?x",
      "relative/no/slash",
      "/only#frag",
      "?q=1",
      "#h",
      "",
      "a://b://c/d",
      "/r?u=https://x.example/y",
      "https://a.example/ünï/çødé",
    ];
    const rows = await t.app.deps.engine.query<{ u: string; p: string }>(
      `select u, ${pathSql("u")} as p from (select unnest($1::varchar[]) as u)`,
      [urls],
    );
    expect(new Map(rows.map((r) => [r.u, r.p]))).toEqual(new Map(urls.map((u) => [u, pathOf(u)])));
  });

  it("stays linear on a hostile start pattern against a long path anyone can send", async () => {
    const b = await t.tenant();
    for (const path of ["/", `/${"a".repeat(4000)}`]) await viewOf(b, "long", path);
    const started = performance.now();
    for (const [page, sessions] of [
      ["*a*a*a*a*b", 0],
      ["/*", 1],
    ] as const) {
      const res = await b.post("/api/analytics/paths", { start: { event: "pageview", page } });
      expect(res.status).toBe(200);
      expect(res.body.sessions, page).toBe(sessions);
    }
    expect(performance.now() - started).toBeLessThan(5000);
  }, 60_000);

  it("orders a session's steps by their times, however its events arrive", async () => {
    const b = await t.tenant();
    const t0 = Date.now() - 3_600_000;
    const view = (path: string, minute: number) =>
      viewOf(b, "late", path, new Date(t0 + minute * 60_000).toISOString());
    // /b arrives before /a, though /a happened first: one session, /pricing → /a → /b.
    await view("/pricing", 0);
    await view("/b", 2);
    await view("/a", 1);
    const res = await b.post("/api/analytics/paths", { start: { event: "pageview", page: "/pricing" } });
    expect(res.status).toBe(200);
    expect(res.body.paths).toEqual([{ nodes: ["/a", "/b"], sessions: 1 }]);
    const before = await b.post("/api/analytics/paths", {
      start: { event: "pageview", page: "/b" },
      direction: "before",
    });
    expect(before.body.paths).toEqual([{ nodes: ["/a", "/pricing"], sessions: 1 }]);
  });
});
