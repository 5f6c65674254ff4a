import { evalCondition } from "@growthbook/growthbook";
import { describe, expect, it } from "vitest";
import { checkCondition } from "../../src/modules/flags/conditions.js";
import { type Clause, toClauses, toCondition } from "../../web/src/pages/flags/conditions.js";

/**
 * The dashboard's condition builder (attribute / operator / value lines): what it writes is a
 * condition the API accepts and GrowthBook evaluates as the line reads, and a condition it reads
 * back gives the same lines.
 */
const line = (attribute: string, op: Clause["op"], value = "", kind: Clause["kind"] = "text"): Clause => ({
  attribute,
  op,
  value,
  kind,
});

const CASES: [Clause, Record<string, unknown>, boolean][] = [
  [line("country", "is", "FR"), { country: "FR" }, true],
  [line("country", "isNot", "FR"), { country: "FR" }, false],
  [line("country", "in", "FR, DE"), { country: "DE" }, true],
  [line("country", "notIn", "FR, DE"), { country: "US" }, true],
  [line("age", "gt", "40"), { age: 41 }, true],
  [line("age", "lte", "40"), { age: 41 }, false],
  [line("beta", "is", "true", "boolean"), { beta: true }, true],
  [line("seats", "in", "1, 5", "number"), { seats: 5 }, true],
  [line("plan", "exists"), {}, false],
  [line("plan", "notExists"), {}, true],
  [line("tags", "contains", "b"), { tags: ["a", "b"] }, true],
  [line("appVersion", "vgte", "2.1.0"), { appVersion: "2.10.0" }, true],
  [line("appVersion", "vlt", "2.1.0"), { appVersion: "2.1.0-beta.1" }, true],
];

describe("condition builder: cohorts", () => {
  it("writes GrowthBook's saved-group test on id or leadId, which the API accepts, and reads it back", () => {
    for (const [clause, mongo] of [
      [line("id", "inCohort", "coh_abc"), "$inGroup"],
      [line("leadId", "notInCohort", "coh_abc"), "$notInGroup"],
    ] as const) {
      const condition = toCondition([clause])!;
      expect(condition).toEqual({ [clause.attribute]: { [mongo]: "coh_abc" } });
      expect(checkCondition(condition, "condition")).toEqual([
        { cohortId: "coh_abc", attribute: clause.attribute, at: `condition.${clause.attribute}.${mongo}` },
      ]);
      expect(toClauses(condition)).toEqual([clause]);
    }
    // as GrowthBook evaluates it once the server filled in the group with the caller's id
    const inCohort = toCondition([line("id", "inCohort", "coh_abc")])!;
    expect(evalCondition({ id: "v1" }, inCohort as never, { coh_abc: ["v1"] })).toBe(true);
    expect(evalCondition({ id: "v2" }, inCohort as never, { coh_abc: [] })).toBe(false);
    expect(() => toCondition([line("email", "inCohort", "coh_abc")])).toThrow("id or leadId");
    expect(() => toCondition([line("id", "inCohort", "")])).toThrow("choose a cohort");
  });
});

describe("condition builder", () => {
  it("writes conditions the API accepts and GrowthBook evaluates as each line reads", () => {
    for (const [clause, attributes, expected] of CASES) {
      const condition = toCondition([clause])!;
      expect(() => checkCondition(condition, "condition")).not.toThrow();
      expect(evalCondition(attributes, condition as never), JSON.stringify(condition)).toBe(expected);
      // Read back: the same line (comparisons are numbers, versions and presence text).
      const kind = ["gt", "gte", "lt", "lte"].includes(clause.op)
        ? "number"
        : ["exists", "notExists"].includes(clause.op) || clause.op.startsWith("v")
          ? "text"
          : clause.kind;
      expect(toClauses(condition), JSON.stringify(condition)).toEqual([{ ...clause, kind }]);
    }
  });

  it("ands its lines, and leaves conditions it cannot show to JSON", () => {
    const condition = toCondition([
      line("country", "is", "FR"),
      line("age", "gte", "18"),
      line("age", "lt", "65"),
    ]);
    expect(condition).toEqual({ country: { $eq: "FR" }, age: { $gte: 18, $lt: 65 } });
    expect(evalCondition({ country: "FR", age: 30 }, condition as never)).toBe(true);
    expect(evalCondition({ country: "FR", age: 70 }, condition as never)).toBe(false);
    expect(toCondition([])).toBeUndefined();
    expect(toClauses({ $or: [{ a: 1 }] })).toBeNull();
    expect(toClauses({ a: { $elemMatch: { b: 1 } } })).toBeNull();
    expect(toClauses({ a: { $in: ["x,y"] } })).toBeNull();
    expect(() => toCondition([line("age", "gt", "many")])).toThrow("not a number");
    expect(() => toCondition([line(" ", "is", "x")])).toThrow("attribute");
  });
});
