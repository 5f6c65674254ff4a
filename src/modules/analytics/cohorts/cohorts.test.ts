import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { isInCohort } from "../service.js";
import { cohortMemberPage, countCohort, evaluateCohort, previewCohort } from "./cohorts.js";
import { personConditions } from "../engine/people.js";
import { EngineQuery } from "../engine/sql.js";
import { parseFilter } from "../filters/filter.js";
import { seedFilterProject } from "../filters/filter-fixture.testing.js";

let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  await seedFilterProject(a);
});
afterAll(async () => t.close());

type Condition = Record<string, unknown>;
const create = async (name: string, conditions: Condition[]) => {
  const res = await a.post("/api/cohorts", { name, definition: { conditions } });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; createdAt: string };
};
const count = async (id: string) => {
  const res = await a.get(`/api/cohorts/${id}/count`);
  expect(res.status).toBe(200);
  return res.body.count as number;
};
const members = async (id: string) => {
  const res = await a.get(`/api/cohorts/${id}/members`);
  expect(res.status).toBe(200);
  return res.body.items.map(
    (m: { leadId: string | null; visitorId: string | null }) => m.leadId ?? `v:${m.visitorId}`,
  );
};
const purchase = { type: "event", event: "purchase", withinDays: 7 };

describe("cohort counts and members (hand-computed, filter-fixture.testing.ts)", () => {
  it("did an event in the window: the phone bought", async () => {
    const c = await create("Bought", [purchase]);
    expect(c).toMatchObject({ name: "Bought", definition: { conditions: [purchase] } });
    expect(await count(c.id)).toBe(1);
    expect(await members(c.id)).toEqual(["v:phone"]);
  });

  it("at least N times, with conditions on the event; a lead's visitors count together", async () => {
    const twice = await create("Two pageviews", [
      { type: "event", event: "pageview", atLeast: 2, withinDays: 7 },
    ]);
    expect((await members(twice.id)).sort()).toEqual(["Lmac", "v:laptop", "v:phone"]);
    const thrice = await create("Three", [{ type: "event", event: "pageview", atLeast: 3, withinDays: 7 }]);
    expect(await count(thrice.id)).toBe(0);
    const pro = await create("Pro pageview", [
      {
        type: "event",
        event: "pageview",
        where: [{ key: "event.plan", op: "is", value: "pro" }],
        withinDays: 7,
      },
    ]);
    expect(await members(pro.id)).toEqual(["v:phone"]);
    const docs = await create("Docs", [
      {
        type: "event",
        event: "pageview",
        where: [{ key: "page", op: "matches", value: "*/docs" }],
        withinDays: 7,
      },
    ]);
    expect(await members(docs.id)).toEqual(["Lmac"]);
  });

  it("did and did not, lead properties, and everyone but", async () => {
    const browsed = await create("Browsed, did not buy", [
      { type: "event", event: "pageview", withinDays: 7 },
      { ...purchase, did: false },
    ]);
    expect((await members(browsed.id)).sort()).toEqual(["Lmac", "v:laptop"]);
    const free = await create("Free plan", [{ type: "property", property: "plan", op: "is", value: "free" }]);
    expect(await members(free.id)).toEqual(["Lmac"]);
    // Everyone: every lead, and every visitor seen (lead:L1's server event is L1's).
    const notBought = await create("Not bought", [{ ...purchase, did: false }]);
    expect((await members(notBought.id)).sort()).toEqual(["L1", "Lmac", "v:laptop"]);
    const noPlan = await create("No plan", [{ type: "property", property: "plan", op: "not_set" }]);
    expect((await members(noPlan.id)).sort()).toEqual(["L1", "v:laptop", "v:phone"]);
    const old = await create("Bought in 2000", [
      { type: "event", event: "purchase", from: "2000-01-01", to: "2000-01-31" },
    ]);
    expect(await count(old.id)).toBe(0);
  });

  it("previews an unsaved definition", async () => {
    const res = await a.post("/api/cohorts/preview", {
      definition: { conditions: [{ type: "event", event: "pageview", withinDays: 7 }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
  });

  it("pages through members with a cursor", async () => {
    const c = await create("All pageviews", [{ type: "event", event: "pageview", withinDays: 7 }]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: any } = await a.get(
        `/api/cohorts/${c.id}/members?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(3);
      expect(res.body.items).toHaveLength(1);
      seen.push(res.body.items[0].leadId ?? res.body.items[0].visitorId);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["Lmac", "laptop", "phone"]);
  });

  it("tells a flag whether a visitor or a lead is in a cohort", async () => {
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const bought = await create("Bought (flag)", [purchase]);
    const free = await create("Free (flag)", [
      { type: "property", property: "plan", op: "is", value: "free" },
    ]);
    expect(await isInCohort(t.app.deps, project, bought.id, { visitorId: "phone" })).toBe(true);
    expect(await isInCohort(t.app.deps, project, bought.id, { visitorId: "laptop" })).toBe(false);
    expect(await isInCohort(t.app.deps, project, free.id, { leadId: "Lmac" })).toBe(true);
    expect(await isInCohort(t.app.deps, project, free.id, { visitorId: "mac" })).toBe(true);
    expect(await isInCohort(t.app.deps, project, "coh_unknown", { visitorId: "phone" })).toBe(false);
    // A changed definition is not answered from the minute's cache of the old one.
    await a.patch(`/api/cohorts/${free.id}`, {
      definition: { conditions: [{ type: "property", property: "plan", op: "is", value: "pro" }] },
    });
    expect(await isInCohort(t.app.deps, project, free.id, { leadId: "Lmac" })).toBe(false);
  });
});

describe("cohort records", () => {
  it("lists newest first, updates, deletes; 404 across projects", async () => {
    const b = await t.tenant();
    const first = await b.post("/api/cohorts", { name: "One", definition: { conditions: [purchase] } });
    const second = await b.post("/api/cohorts", { name: "Two", definition: { conditions: [purchase] } });
    const list = await b.get("/api/cohorts");
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(["Two", "One"]);
    const patched = await b.patch(`/api/cohorts/${first.body.id}`, { name: "Uno", description: "first" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "Uno",
      description: "first",
      definition: { conditions: [purchase] },
    });
    for (const url of [`/api/cohorts/${second.body.id}`, `/api/cohorts/${second.body.id}/count`])
      expect((await a.get(url)).status).toBe(404);
    expect((await a.del(`/api/cohorts/${second.body.id}`)).status).toBe(404);
    const gone = await b.del(`/api/cohorts/${second.body.id}`);
    expect(gone.body).toEqual({ id: second.body.id, deleted: true });
    expect((await b.get(`/api/cohorts/${second.body.id}`)).body).toMatchObject({
      code: "NOT_FOUND",
      status: 404,
    });
    expect((await b.get("/api/cohorts", { as: "none" })).status).toBe(401);
  });

  it("refuses bad definitions with a 400 naming the field", async () => {
    const bad = async (conditions: unknown, message: string) => {
      const res = await a.post("/api/cohorts", { name: "x", definition: { conditions } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", error: message });
    };
    await bad([], "body.definition.conditions must not be empty");
    await bad(
      [{ type: "event", event: "pageview", where: [{ key: "channel", op: "is", value: "email" }] }],
      "body.definition.conditions[0].where[0].key must be page, country or event.<property>",
    );
    await bad(
      [{ type: "event", event: "x", from: "2026-01-01" }],
      "body.definition.conditions[0].from and to go together",
    );
    await bad(
      [{ type: "event", event: "x", from: "2026-02-01", to: "2026-01-01" }],
      "body.definition.conditions[0].from must not be after to",
    );
    await bad(
      [{ type: "property", property: "plan", op: "gt", value: "x" }],
      "body.definition.conditions[0].value must be one number",
    );
  });
});

describe("membership on the analytics engine", () => {
  const project = () => ({ id: a.projectId, workspaceId: a.workspaceId });
  /** The app's deps with an engine that notes every query it is asked. */
  const recording = () => {
    const asked: string[] = [];
    const deps = {
      ...t.app.deps,
      engine: {
        query: <T>(text: string, params?: unknown[]) => {
          asked.push(text);
          return t.app.deps.engine.query<T>(text, params);
        },
      },
    };
    return { deps, asked };
  };

  it("a report's cohort condition is SQL over the engine's events: no member list is bound", async () => {
    const bought = await create("Bought (filter)", [purchase]);
    const q = new EngineQuery();
    const conds = parseFilter([{ key: "cohort", op: "is", value: bought.id }]);
    const where = await personConditions(q, t.app.deps, project(), conds, "p.person", "p.lead_id");
    const lists = q.params.filter((v): v is unknown[] => Array.isArray(v));
    expect(lists.some((l) => l.includes("v:phone"))).toBe(false);
    // The condition, run on the engine over the project's people, selects the phone alone.
    const rows = await t.app.deps.engine.query<{ person: string }>(
      ...q.bound(`select p.person from (select distinct (case when l.lead_id is not null then 'l:' || l.lead_id
        else 'v:' || e.visitor_id end) as person, l.lead_id from events e left join links l
        on l.project_id = e.project_id and l.visitor_id = e.visitor_id where e.project_id = '${a.projectId}') p
        where ${where}`),
    );
    expect(rows.map((r) => r.person)).toEqual(["v:phone"]);
  });

  it("counts, previews and member pages are asked of the engine", async () => {
    const views = await create("Pageviews (engine)", [{ type: "event", event: "pageview", withinDays: 7 }]);
    const { deps, asked } = recording();
    expect(await countCohort(deps, project(), views.id)).toMatchObject({ count: 3 });
    expect(asked.length).toBeGreaterThan(0);
    asked.length = 0;
    const def = { conditions: [{ type: "event" as const, event: "purchase", withinDays: 7 }] };
    expect(await previewCohort(deps, project(), def)).toMatchObject({ count: 1 });
    expect(asked.length).toBeGreaterThan(0);
    asked.length = 0;
    const page = await cohortMemberPage(deps, project(), views.id, { limit: 2 });
    expect(page.count).toBe(3);
    expect(page.items).toEqual([
      { leadId: "Lmac", visitorId: null },
      { leadId: null, visitorId: "laptop" },
    ]);
    expect(asked.length).toBeGreaterThan(0);
    const rest = await cohortMemberPage(deps, project(), views.id, { limit: 2, cursor: page.nextCursor! });
    expect(rest).toEqual({ count: 3, items: [{ leadId: null, visitorId: "phone" }], nextCursor: null });
  });

  it("flags' membership is computed on the engine too", async () => {
    const bought = await create("Bought (engine flag)", [purchase]);
    const { deps, asked } = recording();
    const members = await evaluateCohort(deps, project(), {
      conditions: [purchase as { type: "event"; event: string; withinDays: number }],
    });
    expect(members).toEqual(new Set(["v:phone"]));
    expect(asked.length).toBeGreaterThan(0);
    expect(await isInCohort(t.app.deps, project(), bought.id, { visitorId: "phone" })).toBe(true);
  });
});

describe("a cohort as a report filter (hand-computed)", () => {
  const q = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;
  const figures = (s: { visitors: number; conversions: number; leads: number }) => ({
    visitors: s.visitors,
    conversions: s.conversions,
    leads: s.leads,
  });

  it("summary, retention, the lead list and the export keep the cohort's people", async () => {
    const bought = await create("Bought (reports)", [purchase]);
    const notBought = await create("Not bought (reports)", [{ ...purchase, did: false }]);
    const is = [{ key: "cohort", op: "is", value: bought.id }];
    const isNot = [{ key: "cohort", op: "is_not", value: bought.id }];
    const summary = async (f: unknown) => (await a.get(`/api/analytics/summary?period=7d&${q(f)}`)).body;
    expect(figures(await summary(is))).toEqual({ visitors: 1, conversions: 1, leads: 0 });
    // Everyone else: the laptop and the mac visited; L1 paid (a server event, no visit); both leads new.
    expect(figures(await summary(isNot))).toEqual({ visitors: 2, conversions: 1, leads: 2 });
    const retention = await a.get(`/api/analytics/retention?period=7d&interval=day&${q(is)}`);
    expect(retention.body.cohorts.reduce((n: number, c: { size: number }) => n + c.size, 0)).toBe(1);
    const leads = await a.get(`/api/leads?${q([{ key: "cohort", op: "is", value: notBought.id }])}`);
    expect(leads.body.items.map((l: { id: string }) => l.id).sort()).toEqual(["L1", "Lmac"]);
    const exported = await a.get(`/api/export/events?${q(is)}`);
    expect(exported.status).toBe(200);
    const types = exported.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).type);
    expect(types).toEqual(["pageview", "pageview", "purchase"]);
  });
});
