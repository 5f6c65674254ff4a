import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { isInCohort } from "./service.js";
import { seedFilterProject } from "./filter-fixture.testing.js";

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
