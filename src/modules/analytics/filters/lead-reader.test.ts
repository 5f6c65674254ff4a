import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { AppState, provide } from "../../../platform/deps.js";
import { evaluateCohort } from "../cohorts/cohorts.js";
import { LEAD_READER, type LeadReader } from "./lead-reader.js";

let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  const res = await a.post("/api/identity", { visitorId: "mac", leadId: "Lmac", traits: { plan: "free" } });
  expect(res.status).toBeLessThan(300);
});
afterAll(async () => t.close());

const freePlan = {
  conditions: [{ type: "property" as const, property: "plan", op: "is" as const, value: "free" }],
};
/** A reader that knows no lead: what another app's identity might answer. */
const noLeads: LeadReader = {
  idsWhere: async () => new Set(),
  createdTimes: async () => new Map(),
  latestProperties: async () => [],
};

describe("the lead reader is the app's own (provided in its state)", () => {
  it("another app providing its own reader does not change what this app's cohorts read", async () => {
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    expect(await evaluateCohort(t.app.deps, project, freePlan)).toEqual(new Set(["l:Lmac"]));
    // A second app in the process (same database here, its own state), whose identity knows no lead.
    const other = { db: t.app.db, state: new AppState(), engine: t.app.deps.engine };
    provide(other, LEAD_READER, noLeads);
    expect(await evaluateCohort(other, project, freePlan)).toEqual(new Set());
    expect(await evaluateCohort(t.app.deps, project, freePlan)).toEqual(new Set(["l:Lmac"]));
  });

  it("is a wiring error when no module provided it, and when two do", async () => {
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const bare = { db: t.app.db, state: new AppState(), engine: t.app.deps.engine };
    await expect(evaluateCohort(bare, project, freePlan)).rejects.toThrow(
      "no analytics.lead-reader: the identity module provides it when it registers",
    );
    expect(() => provide(t.app.deps, LEAD_READER, noLeads)).toThrow(
      "analytics.lead-reader is provided twice",
    );
  });
});
