import { GrowthBook } from "@growthbook/growthbook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import { assignVariant, fnv1a32 } from "../experiments/bucketing.js";
import { flagEvaluator } from "./service.js";

/**
 * Agreement: for 10,000 users and flags covering every rule type and condition operator, what the
 * server answers equals what GrowthBook's SDK computes from the served payload, and both equal an
 * independent oracle (a plain predicate per operator; Lift's own bucketing for experiments).
 */
const USERS = 10_000;

interface User {
  id: string;
  email: string;
  country: string;
  age: number;
  plan?: string;
  beta?: boolean;
  tags: string[];
  appVersion: string;
  company: { size: number };
  orders: { sku: string; qty: number }[];
}

function user(i: number): User {
  const h = (salt: string) => fnv1a32(`${salt}:${i}`);
  const tags = ["a", "b", "c", "d"].filter((_, k) => (h("tags") >> k) & 1);
  const pre = h("pre") % 4 === 0 ? `-beta.${h("pre") % 3}` : "";
  const u: User = {
    id: `user-${i}`,
    email: `u${i}@${h("mail") % 3 ? "example.com" : "corp.io"}`,
    country: ["FR", "DE", "US", "GB", "JP"][h("country") % 5]!,
    age: 10 + (h("age") % 80),
    tags,
    appVersion: `${1 + (h("v") % 3)}.${h("minor") % 12}.${h("patch") % 3}${pre}`,
    company: { size: h("size") % 500 },
    orders: Array.from({ length: h("orders") % 4 }, (_, k) => ({ sku: `s${k}`, qty: (h(`q${k}`) % 5) + 1 })),
  };
  if (h("plan") % 4) u.plan = ["free", "pro", "team"][h("plan") % 3];
  if (h("beta") % 3 === 0) u.beta = h("beta") % 2 === 0;
  return u;
}

/** Semver order as GrowthBook's version operators define it: a pre-release sorts before its release. */
function cmpVersion(a: string, b: string): number {
  const parse = (v: string) => {
    const [core, pre] = v.split("-");
    return { n: core!.split(".").map(Number), pre: pre ? Number(pre.split(".")[1]) : null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let k = 0; k < 3; k++) if (x.n[k] !== y.n[k]) return x.n[k]! - y.n[k]!;
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre - y.pre;
}

/** One flag per operator: a force rule with the condition; the oracle says who it matches. */
const OPERATORS: [string, Record<string, unknown>, (u: User) => boolean][] = [
  ["literal", { country: "GB" }, (u) => u.country === "GB"],
  ["eq", { country: { $eq: "FR" } }, (u) => u.country === "FR"],
  ["ne", { country: { $ne: "FR" } }, (u) => u.country !== "FR"],
  ["in", { country: { $in: ["FR", "DE"] } }, (u) => ["FR", "DE"].includes(u.country)],
  ["nin", { country: { $nin: ["FR", "DE"] } }, (u) => !["FR", "DE"].includes(u.country)],
  ["ini", { country: { $ini: ["fr", "jp"] } }, (u) => ["FR", "JP"].includes(u.country)],
  ["nini", { country: { $nini: ["us"] } }, (u) => u.country !== "US"],
  ["gt", { age: { $gt: 40 } }, (u) => u.age > 40],
  ["gte", { age: { $gte: 40 } }, (u) => u.age >= 40],
  ["lt", { age: { $lt: 30 } }, (u) => u.age < 30],
  ["lte", { age: { $lte: 30 } }, (u) => u.age <= 30],
  ["exists", { plan: { $exists: true } }, (u) => u.plan !== undefined],
  ["not-exists", { beta: { $exists: false } }, (u) => u.beta === undefined],
  ["type", { plan: { $type: "string" } }, (u) => typeof u.plan === "string"],
  ["and", { $and: [{ plan: "pro" }, { age: { $gte: 30 } }] }, (u) => u.plan === "pro" && u.age >= 30],
  ["or", { $or: [{ country: "JP" }, { beta: true }] }, (u) => u.country === "JP" || u.beta === true],
  ["nor", { $nor: [{ country: "US" }, { plan: "free" }] }, (u) => u.country !== "US" && u.plan !== "free"],
  ["not", { $not: { country: "US" } }, (u) => u.country !== "US"],
  ["not-op", { age: { $not: { $gt: 50 } } }, (u) => !(u.age > 50)],
  ["elem-match", { tags: { $elemMatch: { $eq: "b" } } }, (u) => u.tags.includes("b")],
  ["elem-match-obj", { orders: { $elemMatch: { qty: { $gt: 3 } } } }, (u) => u.orders.some((o) => o.qty > 3)],
  ["all", { tags: { $all: ["a", "c"] } }, (u) => u.tags.includes("a") && u.tags.includes("c")],
  ["alli", { tags: { $alli: ["A"] } }, (u) => u.tags.includes("a")],
  ["size", { tags: { $size: 2 } }, (u) => u.tags.length === 2],
  ["size-op", { orders: { $size: { $gt: 1 } } }, (u) => u.orders.length > 1],
  ["path", { "company.size": { $gte: 250 } }, (u) => u.company.size >= 250],
  ["veq", { appVersion: { $veq: "2.5.0" } }, (u) => cmpVersion(u.appVersion, "2.5.0") === 0],
  ["vne", { appVersion: { $vne: "2.5.0" } }, (u) => cmpVersion(u.appVersion, "2.5.0") !== 0],
  ["vgt", { appVersion: { $vgt: "2.5.0" } }, (u) => cmpVersion(u.appVersion, "2.5.0") > 0],
  ["vgte", { appVersion: { $vgte: "2.5.0" } }, (u) => cmpVersion(u.appVersion, "2.5.0") >= 0],
  ["vlt", { appVersion: { $vlt: "2.5.0" } }, (u) => cmpVersion(u.appVersion, "2.5.0") < 0],
  ["vlte", { appVersion: { $vlte: "2.10.0" } }, (u) => cmpVersion(u.appVersion, "2.10.0") <= 0],
];

let t: TestApp;
let a: Tenant;
let exp2: string;
let exp3: string;
const users = Array.from({ length: USERS }, (_, i) => user(i));

beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  a = await t.tenant();
  const experiment = async (variants: string[], trafficSplit: number) => {
    const e = await a.post("/api/experiments", {
      name: variants.join("/"),
      targetUrl: "/",
      trafficSplit,
      variants: variants.map((name) => ({ name })),
    });
    await a.patch("/api/experiments", { id: e.body.id, status: "running" });
    return e.body.id as string;
  };
  exp2 = await experiment(["control", "b"], 80);
  exp3 = await experiment(["control", "b", "c"], 100);
  // Unequal weights (what a bandit serves) so the weights' use is checked too.
  await t.app.db
    .updateTable("experiments")
    .set({ weights: JSON.stringify([0.2, 0.3, 0.5]) })
    .where("id", "=", exp3)
    .execute();
  const won = await experiment(["control", "b"], 100);
  await t.app.db
    .updateTable("experiments")
    .set({ status: "completed", winner: "b" })
    .where("id", "=", won)
    .execute();

  const flags: Record<string, unknown>[] = OPERATORS.map(([name, condition]) => ({
    key: `op-${name}`,
    valueType: "boolean",
    defaultValue: false,
    rules: [{ type: "force", condition, value: true }],
  }));
  flags.push(
    {
      key: "rollout-30",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "rollout", value: true, coverage: 0.3 }],
    },
    {
      key: "rollout-email",
      valueType: "string",
      defaultValue: "off",
      rules: [
        { type: "rollout", value: "on", coverage: 0.5, hashAttribute: "email", condition: { country: "FR" } },
      ],
    },
    {
      key: "exp-2",
      valueType: "string",
      defaultValue: "none",
      rules: [{ type: "experiment", experimentId: exp2, variations: ["A", "B"] }],
    },
    {
      key: "exp-3",
      valueType: "json",
      defaultValue: { arm: null },
      rules: [
        {
          type: "experiment",
          experimentId: exp3,
          condition: { country: { $in: ["FR", "DE", "US"] } },
          variations: [{ arm: 0 }, { arm: 1 }, { arm: 2 }],
        },
      ],
    },
    {
      key: "shipped",
      valueType: "number",
      defaultValue: 0,
      rules: [{ type: "experiment", experimentId: won, variations: [1, 2] }],
    },
    {
      key: "chain",
      valueType: "string",
      defaultValue: "default",
      rules: [
        { type: "force", condition: { email: { $in: ["u1@corp.io", "u7@example.com"] } }, value: "vip" },
        { type: "force", condition: { plan: "team", age: { $lt: 25 } }, value: "young-team" },
        { type: "rollout", condition: { country: "DE" }, value: "de-rollout", coverage: 0.4 },
        {
          type: "experiment",
          experimentId: exp2,
          condition: { beta: { $exists: true } },
          variations: ["ctl", "var"],
        },
      ],
    },
    {
      key: "killed",
      valueType: "boolean",
      defaultValue: false,
      enabled: false,
      rules: [{ type: "force", value: true }],
    },
  );
  for (const f of flags) {
    const res = await a.post("/api/flags", f);
    if (res.status !== 201) throw new Error(`${f.key}: ${res.status} ${res.text}`);
  }
}, 60_000);
afterAll(async () => t.close());

describe(`server and SDK agree for ${USERS.toLocaleString("en")} users`, () => {
  it("on every flag and user: the evaluate endpoint's evaluator equals GrowthBook's SDK on the served payload", async () => {
    const served = await t.app.inject({ url: `/api/features/${a.publicKey}` });
    expect(served.statusCode).toBe(200);
    const payload = served.json();
    const keys = Object.keys(payload.features).sort();
    expect(keys).toHaveLength(OPERATORS.length + 7);
    const server = await flagEvaluator(t.app.deps, { id: a.projectId, workspaceId: a.workspaceId });
    // A single-user SDK instance, as a page or a request handler holds one, fed the served payload.
    const gb = new GrowthBook({ features: payload.features });
    const disagreements: string[] = [];
    const stats = new Map<string, { on: number; sources: Set<string> }>();
    for (const u of users) {
      await gb.setAttributes(u as unknown as Record<string, unknown>);
      for (const key of keys) {
        const s = server(key, u as unknown as Record<string, unknown>);
        const sdk = gb.evalFeature(key);
        // Same value, decided by the same rule, and (experiments) the same variant.
        const same =
          JSON.stringify(sdk.value) === JSON.stringify(s.value) &&
          sdk.ruleId === (s.ruleId ?? "") &&
          (sdk.source !== "experiment" || sdk.experimentResult?.key === s.variant);
        if (!same)
          disagreements.push(`${key} ${u.id}: server ${JSON.stringify(s)} sdk ${JSON.stringify(sdk)}`);
        const st = stats.get(key) ?? { on: 0, sources: new Set() };
        if (s.source !== "defaultValue") st.on++;
        st.sources.add(s.source);
        stats.set(key, st);
      }
    }
    gb.destroy();
    expect(disagreements.slice(0, 5)).toEqual([]);
    // Every operator matched some users and not others (the test exercises both outcomes).
    for (const [name] of OPERATORS) {
      const on = stats.get(`op-${name}`)!.on;
      expect(on, name).toBeGreaterThan(0);
      expect(on, name).toBeLessThan(USERS);
    }
    expect([...stats.get("chain")!.sources].sort()).toEqual([
      "defaultValue",
      "experiment",
      "force",
      "rollout",
    ]);
    expect(stats.get("killed")!.on).toBe(0);
  });

  it("every operator matches exactly the users its plain predicate picks", async () => {
    const server = await flagEvaluator(t.app.deps, { id: a.projectId, workspaceId: a.workspaceId });
    for (const [name, , oracle] of OPERATORS) {
      const wrong = users.filter(
        (u) => server(`op-${name}`, u as unknown as Record<string, unknown>).value !== oracle(u),
      );
      expect(wrong.map((u) => u.id).slice(0, 3), `op-${name}`).toEqual([]);
    }
  });

  it("rollouts cover their share within ±2 points; experiments bucket as Lift's snippet does", async () => {
    const server = await flagEvaluator(t.app.deps, { id: a.projectId, workspaceId: a.workspaceId });
    const attrs = (u: User) => u as unknown as Record<string, unknown>;
    const rolled = users.filter((u) => server("rollout-30", attrs(u)).value === true).length / USERS;
    expect(Math.abs(rolled - 0.3)).toBeLessThanOrEqual(0.02);
    const french = users.filter((u) => u.country === "FR");
    const frenchOn =
      french.filter((u) => server("rollout-email", attrs(u)).value === "on").length / french.length;
    expect(Math.abs(frenchOn - 0.5)).toBeLessThanOrEqual(0.04);
    expect(users.some((u) => u.country !== "FR" && server("rollout-email", attrs(u)).value === "on")).toBe(
      false,
    );

    let inExp2 = 0;
    const arms = [0, 0, 0];
    for (const u of users) {
      const two = server("exp-2", attrs(u));
      const lift2 = assignVariant(exp2, u.id, [0.5, 0.5], 80);
      expect(two.source === "experiment" ? ["control", "b"].indexOf(two.variant!) : -1).toBe(lift2);
      if (lift2 >= 0) inExp2++;
      const three = server("exp-3", attrs(u));
      const lift3 = ["FR", "DE", "US"].includes(u.country)
        ? assignVariant(exp3, u.id, [0.2, 0.3, 0.5], 100)
        : -1;
      expect(three.value).toEqual({ arm: lift3 >= 0 ? lift3 : null });
      if (lift3 >= 0) arms[lift3]!++;
    }
    expect(Math.abs(inExp2 / USERS - 0.8)).toBeLessThanOrEqual(0.02);
    const total = arms[0]! + arms[1]! + arms[2]!;
    arms.forEach((n, i) => {
      expect(Math.abs(n / total - [0.2, 0.3, 0.5][i]!)).toBeLessThanOrEqual(0.02);
    });
    // The completed experiment's winner is served to everyone.
    expect(new Set(users.map((u) => server("shipped", attrs(u)).value))).toEqual(new Set([2]));
  });

  it("POST /api/flags/:key/evaluate answers what the evaluator does (a sample over HTTP)", async () => {
    const server = await flagEvaluator(t.app.deps, { id: a.projectId, workspaceId: a.workspaceId });
    const keys = [
      "op-in",
      "op-vgt",
      "op-elem-match-obj",
      "rollout-30",
      "exp-2",
      "exp-3",
      "shipped",
      "chain",
      "killed",
    ];
    for (let i = 0; i < USERS; i += 97) {
      const u = users[i]!;
      for (const key of keys) {
        const res = await a.post(`/api/flags/${key}/evaluate`, { attributes: u });
        expect(res.status).toBe(200);
        expect(res.body, `${key} ${u.id}`).toEqual(server(key, u as unknown as Record<string, unknown>));
      }
    }
  });
});
