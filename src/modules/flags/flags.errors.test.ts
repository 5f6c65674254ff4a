import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import { newId } from "../../platform/crypto.js";
import { MAX_FLAGS_PER_PROJECT } from "./schema.js";

let t: TestApp;
let a: Tenant;
let experimentId: string;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  experimentId = (
    await a.post("/api/experiments", {
      name: "Three arms",
      targetUrl: "/",
      variants: [{ name: "control" }, { name: "b" }, { name: "c" }],
    })
  ).body.id;
  await a.post("/api/flags", {
    key: "existing",
    valueType: "string",
    defaultValue: "a",
    rules: [
      { id: "force-1", type: "force", value: "x" },
      { id: "exp-1", type: "experiment", experimentId, variations: ["a", "b", "c"] },
    ],
  });
});
afterAll(async () => t.close());

/** Expects a 400 in the spec's format whose message names `field`. */
function expect400(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
  expect(res.body.error).toContain(field);
}

const flag = (over: Record<string, unknown> = {}) => ({
  key: `f-${Math.random().toString(36).slice(2, 10)}`,
  valueType: "boolean",
  defaultValue: false,
  ...over,
});
const withRule = (rule: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  flag({ rules: [rule], ...over });

describe("400: the field is named", () => {
  it("refuses keys outside [a-z0-9][a-z0-9_.-]{0,99}", async () => {
    for (const key of ["", "Upper", "-lead", "has space", "a/b", `a${"b".repeat(100)}`])
      expect400(await a.post("/api/flags", flag({ key })), "body.key");
    expect((await a.post("/api/flags", flag({ key: `a${"b".repeat(99)}` }))).status).toBe(201);
  });

  it("refuses a default or rule value of another type than the flag's", async () => {
    const cases: [string, unknown][] = [
      ["boolean", "true"],
      ["string", 1],
      ["number", "1"],
      ["json", "{}"],
      ["json", 3],
    ];
    for (const [valueType, defaultValue] of cases)
      expect400(await a.post("/api/flags", flag({ valueType, defaultValue })), "body.defaultValue");
    expect400(await a.post("/api/flags", flag({ defaultValue: undefined })), "body.defaultValue");
    expect400(await a.post("/api/flags", withRule({ type: "force", value: "yes" })), "body.rules[0].value");
    expect400(
      await a.post("/api/flags", withRule({ type: "rollout", value: 1, coverage: 0.5 })),
      "body.rules[0].value",
    );
    expect400(
      await a.post(
        "/api/flags",
        withRule(
          { type: "experiment", experimentId, variations: ["a", 1, "c"] },
          { valueType: "string", defaultValue: "" },
        ),
      ),
      "body.rules[0].variations[1]",
    );
  });

  it("refuses malformed rules by their type's fields", async () => {
    expect400(
      await a.post("/api/flags", withRule({ type: "rollout", value: true })),
      "body.rules[0].coverage",
    );
    expect400(
      await a.post("/api/flags", withRule({ type: "rollout", value: true, coverage: 1.5 })),
      "body.rules[0].coverage",
    );
    expect400(await a.post("/api/flags", withRule({ type: "sometimes", value: true })), "body.rules[0]");
    expect400(
      await a.post("/api/flags", withRule({ type: "force", value: true, extra: 1 })),
      "body.rules[0].extra",
    );
    expect400(
      await a.post(
        "/api/flags",
        flag({
          rules: [
            { id: "same", type: "force", value: true },
            { id: "same", type: "force", value: false },
          ],
        }),
      ),
      "body.rules[1].id",
    );
  });

  it("refuses experiment rules on unknown experiments or without one value per variant", async () => {
    expect400(
      await a.post(
        "/api/flags",
        withRule({ type: "experiment", experimentId: "exp_nope", variations: [true, false] }),
      ),
      "body.rules[0].experimentId",
    );
    const other = await t.tenant();
    const theirs = (
      await other.post("/api/experiments", {
        name: "x",
        targetUrl: "/",
        variants: [{ name: "a" }, { name: "b" }],
      })
    ).body.id;
    expect400(
      await a.post(
        "/api/flags",
        withRule({ type: "experiment", experimentId: theirs, variations: [true, false] }),
      ),
      "body.rules[0].experimentId",
    );
    expect400(
      await a.post("/api/flags", withRule({ type: "experiment", experimentId, variations: [true, false] })),
      "body.rules[0].variations",
    );
  });

  it("REFUSES every regex operator, wherever it sits in the condition", async () => {
    const conditions = [
      { email: { $regex: "^(a+)+$" } },
      { email: { $regexi: "x" } },
      { email: { $notRegex: "x" } },
      { $and: [{ plan: "pro" }, { email: { $regex: "x" } }] },
      { $or: [{ $not: { email: { $regexi: "x" } } }] },
      { tags: { $elemMatch: { $regex: "x" } } },
      { tags: { $elemMatch: { name: { $regex: "x" } } } },
      { email: { $not: { $regex: "x" } } },
    ];
    for (const condition of conditions) {
      const res = await a.post("/api/flags", withRule({ type: "force", value: true, condition }));
      expect400(res, "body.rules[0].condition.");
      expect(res.body.error).toMatch(/regex/i);
    }
  });

  it("refuses unknown operators, saved groups, and conditions too deep or too large", async () => {
    const cases: [unknown, string][] = [
      [{ age: { $between: [1, 2] } }, "body.rules[0].condition.age.$between"],
      [{ $where: "1" }, "body.rules[0].condition.$where"],
      [{ id: { $inGroup: "g" } }, "body.rules[0].condition.id.$inGroup"],
      [{ $savedGroup: { id: "g" } }, "body.rules[0].condition.$savedGroup"],
      [{ country: { $in: "FR" } }, "body.rules[0].condition.country.$in"],
      [{ version: { $vgt: 2 } }, "body.rules[0].condition.version.$vgt"],
      [{ beta: { $exists: "yes" } }, "body.rules[0].condition.beta.$exists"],
      [{ x: { $type: "date" } }, "body.rules[0].condition.x.$type"],
      [{ $and: { plan: "pro" } }, "body.rules[0].condition.$and"],
      [{ $not: [1] }, "body.rules[0].condition.$not"],
      [{ n: { $in: Array.from({ length: 501 }, (_, i) => i) } }, "body.rules[0].condition.n.$in"],
      [{ a: "x".repeat(9000) }, "body.rules[0].condition"],
      [[{ plan: "pro" }], "body.rules[0].condition"],
    ];
    let deep: Record<string, unknown> = { plan: "pro" };
    for (let i = 0; i < 9; i++) deep = { $and: [deep] };
    cases.push([deep, "deeper than 8"]);
    for (const [condition, field] of cases)
      expect400(await a.post("/api/flags", withRule({ type: "force", value: true, condition })), field);
  });

  it("PATCH refuses key, and a new valueType its stored values do not have", async () => {
    expect400(await a.patch("/api/flags/existing", { key: "renamed" }), "body.key");
    expect400(await a.patch("/api/flags/existing", { valueType: "number" }), "body.defaultValue");
    expect400(
      await a.patch("/api/flags/existing", { valueType: "number", defaultValue: 1 }),
      "body.rules[0].value",
    );
    expect400(await a.patch("/api/flags/existing", { defaultValue: null }), "body.defaultValue");
  });

  it("refuses evaluation attributes that would make GrowthBook's evaluator slow", async () => {
    const long = `${"+".repeat(300)}\n`;
    expect400(await a.post("/api/flags/existing/evaluate", { attributes: { v: long } }), "body.attributes.v");
    expect400(
      await a.post("/api/flags/existing/evaluate", { attributes: { tags: Array(201).fill("t") } }),
      "body.attributes.tags",
    );
    const big = await a.post("/api/flags/existing/evaluate", { attributes: { x: "y".repeat(70_000) } });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect400(await a.post("/api/flags/existing/evaluate", { attributes: [] }), "body.attributes");
  });

  it("ship: a variant that is not the experiment's is 400", async () => {
    expect400(await a.post("/api/flags/existing/rules/exp-1/ship", { variant: "d" }), "body.variant");
  });
});

describe("404", () => {
  it("answers unknown flags and rules with 404 on every route that names one", async () => {
    for (const [method, url, body] of [
      ["GET", "/api/flags/nope"],
      ["PATCH", "/api/flags/nope", { enabled: false }],
      ["DELETE", "/api/flags/nope"],
      ["POST", "/api/flags/nope/evaluate", { attributes: {} }],
      ["GET", "/api/flags/nope/history"],
      ["POST", "/api/flags/nope/rules/r1/ship", {}],
      ["POST", "/api/flags/existing/rules/missing-rule/ship", {}],
    ] as const) {
      const res = await a.request(method, url, body);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body).toMatchObject({ code: "NOT_FOUND", status: 404 });
    }
  });
});

describe("409", () => {
  it("refuses a key that exists in the project (and allows it in another)", async () => {
    const dup = await a.post("/api/flags", flag({ key: "existing" }));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: "CONFLICT", status: 409 });
    expect(dup.body.error).toContain("existing");
    const b = await t.tenant();
    expect((await b.post("/api/flags", flag({ key: "existing" }))).status).toBe(201);
  });

  it("ship: refuses a non-experiment rule, and an experiment without a winner unless a variant is named", async () => {
    const force = await a.post("/api/flags/existing/rules/force-1/ship", {});
    expect(force.status).toBe(409);
    expect(force.body.code).toBe("CONFLICT");
    const noWinner = await a.post("/api/flags/existing/rules/exp-1/ship", {});
    expect(noWinner.status).toBe(409);
    expect(noWinner.body.error).toContain("no winner");
    const named = await a.post("/api/flags/existing/rules/exp-1/ship", { variant: "c" });
    expect(named.status).toBe(200);
    expect(named.body.rules[1]).toEqual({ id: "exp-1", type: "force", value: "c" });
  });

  it(`refuses a flag past the project's ${MAX_FLAGS_PER_PROJECT}`, async () => {
    const b = await t.tenant();
    const now = new Date().toISOString();
    const rows = Array.from({ length: MAX_FLAGS_PER_PROJECT }, (_, i) => ({
      id: newId("flag"),
      workspace_id: b.workspaceId,
      project_id: b.projectId,
      key: `bulk-${i}`,
      description: null,
      value_type: "boolean" as const,
      default_value: "false",
      enabled: 1,
      rules: "[]",
      tags: "[]",
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await t.app.db
        .insertInto("flags")
        .values(rows.slice(i, i + 200))
        .execute();
    const res = await b.post("/api/flags", flag());
    expect(res.status).toBe(409);
    expect(res.body.error).toContain(String(MAX_FLAGS_PER_PROJECT));
  });
});
