import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { SHOP, seedFilterProject } from "../filters/filter-fixture.testing.js";

let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  await seedFilterProject(a);
});
afterAll(async () => t.close());

const items = async (url: string) => {
  const res = await a.get(url);
  expect(res.status).toBe(200);
  return res.body.items.map((i: { value: string; count: number }) => [i.value, i.count]);
};

describe("pickers: what the data holds (filter-fixture.testing.ts)", () => {
  it("event names, by prefix (bots left out)", async () => {
    expect(await items("/api/analytics/pickers/event-names")).toEqual([
      ["$revenue", 1],
      ["pageview", 1],
      ["purchase", 1],
    ]);
    expect(await items("/api/analytics/pickers/event-names?prefix=PU")).toEqual([["purchase", 1]]);
  });

  it("property keys of events (of one type) and of leads, with how often they were seen", async () => {
    expect(await items("/api/analytics/pickers/property-keys")).toEqual([
      ["plan", 2],
      ["revenue", 2],
    ]);
    expect(await items("/api/analytics/pickers/property-keys?event=pageview")).toEqual([["plan", 1]]);
    expect(await items("/api/analytics/pickers/property-keys?scope=lead&prefix=p")).toEqual([["plan", 1]]);
  });

  it("values of a key: session values, pages, properties, cohorts", async () => {
    expect(await items("/api/analytics/pickers/values?key=channel")).toEqual([
      ["email", 1],
      ["organic_search", 1],
      ["organic_social", 1],
    ]);
    expect(
      (await items("/api/analytics/pickers/values?key=device&prefix=m")).map((i: string[]) => i[0]),
    ).toEqual(["mobile"]);
    expect(await items("/api/analytics/pickers/values?key=page&limit=2")).toEqual([
      [`${SHOP}/pricing`, 3],
      [`${SHOP}/`, 1],
    ]);
    expect(await items("/api/analytics/pickers/values?key=page_no_query&limit=1")).toEqual([
      [`${SHOP}/pricing`, 3],
    ]);
    // A landing URL's tags, as its filter keys read them (utm_campaign: the session's campaign).
    expect(await items("/api/analytics/pickers/values?key=utm_medium")).toEqual([["email", 1]]);
    expect(await items("/api/analytics/pickers/values?key=utm_campaign")).toEqual(
      await items("/api/analytics/pickers/values?key=campaign"),
    );
    expect(
      (await items("/api/analytics/pickers/values?key=utm_campaign")).map((i: string[]) => i[0]),
    ).toContain("spring");
    expect(await items("/api/analytics/pickers/values?key=event.plan")).toEqual([["pro", 2]]);
    expect(await items("/api/analytics/pickers/values?key=event.revenue")).toEqual([
      ["25", 1],
      ["40", 1],
    ]);
    expect(await items("/api/analytics/pickers/values?key=lead.plan")).toEqual([["free", 1]]);
    const cohort = await a.post("/api/cohorts", {
      name: "Buyers",
      definition: { conditions: [{ type: "event", event: "purchase" }] },
    });
    const res = await a.get("/api/analytics/pickers/values?key=cohort&prefix=buy");
    expect(res.body.items).toEqual([{ value: cohort.body.id, label: "Buyers", count: 1 }]);
  });

  it("refuses an unknown key", async () => {
    const res = await a.get("/api/analytics/pickers/values?key=colour");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^query\.key must be a filter key/);
  });
});
