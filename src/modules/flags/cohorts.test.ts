import { GrowthBookClient } from "@growthbook/growthbook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { seedCohortProject } from "../analytics/filters/filter-fixture.testing.js";

/**
 * Cohorts as a flag's targeting. filter-fixture.testing.ts's people, by hand:
 * phone (anonymous) bought; laptop (anonymous) only looked; mac is lead Lmac {plan: free};
 * L1 is a lead with a server $revenue only. So "Buyers" (did purchase) = {phone}; "Free plan"
 * (lead property plan is free) = {Lmac}, which holds visitor mac through its link.
 */
let t: TestApp;
let a: Tenant;
let buyers: string;
let free: string;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  ({ buyers, free } = await seedCohortProject(a));
});
afterAll(async () => t.close());

const flag = async (key: string, rules: unknown[]) => {
  const res = await a.post("/api/flags", { key, valueType: "string", defaultValue: "off", rules });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
};
const evaluate = async (key: string, attributes: Record<string, unknown>) =>
  (await a.post(`/api/flags/${key}/evaluate`, { attributes })).body;
const remote = async (attributes: Record<string, unknown>) => {
  const res = await a.post(`/api/eval/${a.publicKey}`, { attributes }, { as: "none" });
  expect(res.status).toBe(200);
  return res.body.features as Record<string, { defaultValue: unknown }>;
};

describe("a flag rule targeting a cohort", () => {
  it("the evaluate endpoint: in the cohort by visitor id (its lead looked up) or by lead id", async () => {
    await flag("checkout", [
      { id: "buyers", type: "force", condition: { id: { $inGroup: buyers } }, value: "buyer" },
      { id: "free-lead", type: "force", condition: { leadId: { $inGroup: free } }, value: "free-lead" },
      { id: "free-visitor", type: "force", condition: { id: { $inGroup: free } }, value: "free-visitor" },
    ]);
    expect(await evaluate("checkout", { id: "phone" })).toEqual({
      value: "buyer",
      source: "force",
      ruleId: "buyers",
    });
    expect(await evaluate("checkout", { id: "laptop" })).toEqual({ value: "off", source: "defaultValue" });
    expect((await evaluate("checkout", { leadId: "Lmac" })).value).toBe("free-lead");
    // mac is Lmac's visitor: the cohort holds its person
    expect((await evaluate("checkout", { id: "mac" })).value).toBe("free-visitor");
    expect((await evaluate("checkout", { id: "nobody-knows-me" })).value).toBe("off");
    expect((await evaluate("checkout", {})).value).toBe("off");
    // a number id is compared as GrowthBook compares it: the caller's value itself
    expect((await evaluate("checkout", { id: 42 })).value).toBe("off");
  });

  it("not in a cohort, and inside $or / $not", async () => {
    await flag("upsell", [
      { id: "not-buyers", type: "force", condition: { id: { $notInGroup: buyers } }, value: "upsell" },
    ]);
    expect((await evaluate("upsell", { id: "phone" })).value).toBe("off");
    expect((await evaluate("upsell", { id: "laptop" })).value).toBe("upsell");
    await flag("either", [
      {
        type: "force",
        condition: { $or: [{ id: { $inGroup: buyers } }, { leadId: { $not: { $notInGroup: free } } }] },
        value: "either",
      },
    ]);
    expect((await evaluate("either", { id: "phone" })).value).toBe("either");
    expect((await evaluate("either", { id: "laptop", leadId: "Lmac" })).value).toBe("either");
    expect((await evaluate("either", { id: "laptop", leadId: "L1" })).value).toBe("off");
  });

  it("remote evaluation fills the cohorts in; the downloaded payload names them but holds no member", async () => {
    await flag("banner", [{ type: "force", condition: { id: { $inGroup: buyers } }, value: "thanks" }]);
    expect((await remote({ id: "phone" })).banner!.defaultValue).toBe("thanks");
    expect((await remote({ id: "laptop" })).banner!.defaultValue).toBe("off");
    const payload = await a.get(`/api/features/${a.publicKey}`, { as: "none" });
    const text = JSON.stringify(payload.body);
    expect(text).toContain(buyers);
    expect(text).not.toContain("savedGroups");
    for (const person of ["phone", "laptop", "mac", "Lmac", "L1"]) expect(text).not.toContain(`"${person}"`);
    // what a local-evaluation SDK does with it: $inGroup of a group it never got matches no one
    const local = new GrowthBookClient().initSync({ payload: payload.body });
    expect(local.evalFeature("banner", { attributes: { id: "phone" } }).value).toBe("off");
    expect(local.evalFeature("upsell", { attributes: { id: "phone" } }).value).toBe("upsell");
  });

  it("membership is at most a minute old, and a changed definition counts at once", async () => {
    await flag("fresh", [{ type: "force", condition: { id: { $inGroup: buyers } }, value: "in" }]);
    expect((await evaluate("fresh", { id: "laptop" })).value).toBe("off");
    await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        type: "purchase",
        visitorId: "laptop",
        url: "https://shop.example.com/thanks",
      },
      { as: "none", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36" } },
    );
    // the membership computed a moment ago is still used …
    expect((await evaluate("fresh", { id: "laptop" })).value).toBe("off");
    // … until the cohort changes (its definition version is in the cache key)
    await a.patch(`/api/cohorts/${buyers}`, {
      name: "Buyers (any time)",
      definition: { conditions: [{ type: "event", event: "purchase", withinDays: 60 }] },
    });
    expect((await evaluate("fresh", { id: "laptop" })).value).toBe("in");
  });

  it("refuses with 400 naming the field: another attribute, an unknown or other project's cohort, $savedGroup, inside arrays, over 10", async () => {
    const b = await t.tenant();
    const theirs = (
      await b.post("/api/cohorts", {
        name: "Theirs",
        definition: { conditions: [{ type: "event", event: "x" }] },
      })
    ).body.id;
    const bad = async (condition: unknown, message: string) => {
      const res = await a.post("/api/flags", {
        key: "bad",
        valueType: "boolean",
        defaultValue: false,
        rules: [{ type: "force", condition, value: true }],
      });
      expect(res.status, JSON.stringify(condition)).toBe(400);
      expect(res.body.error).toBe(message);
    };
    await bad(
      { email: { $inGroup: buyers } },
      "body.rules[0].condition.email.$inGroup: a cohort is tested on the attribute id (the visitor) or leadId (the lead), not email",
    );
    await bad(
      { id: { $inGroup: "coh_missing" } },
      "body.rules[0].condition.id.$inGroup: no cohort coh_missing in this project",
    );
    await bad(
      { id: { $inGroup: theirs } },
      `body.rules[0].condition.id.$inGroup: no cohort ${theirs} in this project`,
    );
    await bad({ id: { $inGroup: 7 } }, "body.rules[0].condition.id.$inGroup must be a cohort id (coh_…)");
    await bad(
      { $savedGroup: { id: buyers } },
      'body.rules[0].condition.$savedGroup is not a supported condition operator (Lift\'s saved groups are cohorts: {"id": {"$inGroup": "coh_…"}})',
    );
    await bad(
      { orders: { $elemMatch: { id: { $inGroup: buyers } } } },
      "body.rules[0].condition.orders.$elemMatch.id.$inGroup: a cohort cannot be tested inside $elemMatch",
    );
    const many = Array.from({ length: 11 }, (_, i) => ({ id: { $inGroup: `coh_x${i}` } }));
    await bad(
      { $or: many },
      "body.rules[0].condition.$or[10].id.$inGroup: a flag's rules name at most 10 cohorts",
    );
  });

  it("an id no one could have is not looked up; an evaluation stays fast whatever the caller sends", async () => {
    await flag("bounded", [{ type: "force", condition: { id: { $inGroup: buyers } }, value: "in" }]);
    const started = performance.now();
    const res = await evaluate("bounded", { id: "x".repeat(30_000), leadId: "y".repeat(30_000) });
    expect(res.value).toBe("off");
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => remote({ id: `visitor-${i}` })));
    expect(many.every((f) => f.bounded!.defaultValue === "off")).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
