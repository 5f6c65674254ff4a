import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { AppState, provide } from "../../platform/deps.js";
import { LEAD_ANALYTICS, type LeadAnalytics, getLeadProfile } from "./service.js";

let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  const res = await a.post("/api/identity", { visitorId: "mac", leadId: "Lmac", traits: { plan: "free" } });
  expect(res.status).toBeLessThan(300);
});
afterAll(async () => t.close());

/** What another app's analytics might answer: seven conversions for every lead. */
const sevenEach: LeadAnalytics = {
  parseFilter: () => [],
  propertyTest: (c) => ({ property: c.property ?? "", sql: () => sql<boolean>`1 = 1` }),
  peopleMatching: async () => undefined,
  conversionTotals: async (_db, _project, ids) =>
    new Map(ids.map((id) => [id, { conversions: 7, revenue: 0 }])),
};

describe("the lead analytics are the app's own (provided in its state)", () => {
  it("another app providing its own does not change what this app's lead profile reads", async () => {
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    expect(await getLeadProfile(t.app.deps, project, "Lmac")).toMatchObject({ conversions: 0 });
    // A second app in the process (same database here, its own state), whose analytics differ.
    const other = { db: t.app.db, state: new AppState() };
    provide(other, LEAD_ANALYTICS, sevenEach);
    expect(await getLeadProfile(other, project, "Lmac")).toMatchObject({ conversions: 7 });
    expect(await getLeadProfile(t.app.deps, project, "Lmac")).toMatchObject({ conversions: 0 });
  });

  it("is a wiring error when no module provided it, and when two do", async () => {
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const bare = { db: t.app.db, state: new AppState() };
    await expect(getLeadProfile(bare, project, "Lmac")).rejects.toThrow(
      "no identity.lead-analytics: the analytics module provides it when it registers",
    );
    expect(() => provide(t.app.deps, LEAD_ANALYTICS, sevenEach)).toThrow(
      "identity.lead-analytics is provided twice",
    );
  });
});
