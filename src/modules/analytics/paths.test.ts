import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { seedFilterProject } from "./filter-fixture.testing.js";
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

  it("reads a page's path from a URL", () => {
    expect(pathOf("https://a.example/x/y?q=1#h")).toBe("/x/y");
    expect(pathOf("https://a.example")).toBe("/");
    expect(pathOf("/relative?x")).toBe("/relative");
  });
});
