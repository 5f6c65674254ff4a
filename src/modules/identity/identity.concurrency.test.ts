import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { ingestServerEvents } from "../events/service.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("stitches racing event commits for the same visitors", () => {
  it("all succeed and every visitor ends up linked with its whole history", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const visitors = Array.from({ length: 20 }, (_, i) => `v-race-${i}`);
    await ingestServerEvents(
      t.app.deps,
      project,
      visitors.flatMap((visitorId) => [
        { type: "pageview", visitorId, url: "https://a.com/" },
        { type: "pageview", visitorId, url: "https://a.com/pricing" },
      ]),
    );
    // Several visitors share an email, so stitches also race on the same lead.
    const results = await Promise.all(
      visitors.flatMap((visitorId, i) => [
        a.post(
          "/api/identity/stitch",
          { visitorId, email: `race${i % 4}@example.com`, projectKey: a.apiKey },
          { as: "none" },
        ),
        ingestServerEvents(t.app.deps, project, [
          { type: "form_submit", visitorId, url: "https://a.com/signup", data: {} },
        ]),
      ]),
    );
    const leadOf = new Map<string, string>();
    for (const r of results) {
      if (typeof r === "number") expect(r).toBe(1);
      else {
        expect(r.status, r.text).toBe(200);
        leadOf.set(r.body.visitorId, r.body.leadId);
      }
    }
    for (const visitorId of visitors) {
      const journey = await a.get(`/api/identity?visitorId=${visitorId}`);
      expect(journey.body.leadId).toMatch(/^lead_/);
      expect(journey.body.leadId).toBe(leadOf.get(visitorId));
      const own = journey.body.events.filter((e: { url: string }) => e.url.startsWith("https://a.com"));
      expect(own.length).toBeGreaterThanOrEqual(3);
    }
    const leads = await t.app.db
      .selectFrom("service_events")
      .select("data")
      .where("type", "=", "lead.created")
      .where("project_id", "=", a.projectId)
      .execute();
    expect(leads).toHaveLength(4);
  });
});
