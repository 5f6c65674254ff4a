import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import {
  type ConditionT,
  type ConversionGoalDef,
  goalPredicates,
  matchesConversionGoal,
} from "../../goals/service.js";
import type { MatchableEvent } from "../../goals/service.js";
import { oracleMatches } from "./goal-oracle.testing.js";
import { EngineQuery, predicatesSql } from "./sql.js";

/**
 * A conversion goal in the shared predicate language (parsed from its wire form) judges events as
 * the matcher goals had before it: in memory (what ingest and recounts run) and as the engine's SQL.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

// Texts with the characters LIKE, the glob and JSON paths treat specially, in both cases.
// Few values, so that conditions and data meet often.
const word = fc.constantFrom("pro", "Pro", "a%b", "x\\y", "49", "3.5", "-2", "", " ");
const num = fc.constantFrom(-2, 3.5, 10, 49);
const scalar = fc.oneof(word, num, fc.boolean(), fc.constant(null));
const leaf = fc.oneof(
  word,
  num,
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("a_b", "PRO plan", "49", "-2"),
);
const data = fc
  .record(
    {
      plan: leaf,
      amount: leaf,
      tag: leaf,
      meta: fc.oneof(fc.record({ src: leaf }, { requiredKeys: [] }), leaf),
    },
    { requiredKeys: [] },
  )
  // as events arrive and are stored: parsed JSON
  .map((d) => JSON.parse(JSON.stringify(d)) as Record<string, unknown>);
// One or two operators: more would rarely all hold, and a match is what needs checking.
const oneOp = fc.oneof(
  scalar.map((v) => ({ eq: v })),
  scalar.map((v) => ({ neq: v })),
  fc.tuple(fc.constantFrom("gt", "gte", "lt", "lte"), num).map(([op, v]) => ({ [op]: v })),
  fc.constantFrom("pro", "R", "%", "_", "\\", "a", "4").map((v) => ({ contains: v })),
  fc.array(scalar, { maxLength: 3 }).map((v) => ({ in: v })),
  fc.boolean().map((v) => ({ exists: v })),
);
const opObject = fc
  .array(oneOp, { minLength: 1, maxLength: 2 })
  .map((ops) => Object.assign({}, ...ops) as ConditionT);
const condition: fc.Arbitrary<ConditionT> = fc.oneof(
  { arbitrary: scalar, weight: 1 },
  { arbitrary: opObject, weight: 2 },
);
const conditions = fc.dictionary(fc.constantFrom("plan", "amount", "tag", "meta", "meta.src"), condition, {
  minKeys: 1,
  maxKeys: 2,
});

const segment = fc.constantFrom("checkout", "Checkout", "done", "blog", "a", "x-1");
const path = fc.array(segment, { minLength: 0, maxLength: 3 }).map((s) => `/${s.join("/")}`);
const host = fc.constantFrom("a.com", "shop.a.com", "B.com");
const url = fc
  .tuple(
    fc.constantFrom("https", "http", "HTTPS"),
    host,
    path,
    fc.boolean(),
    fc.constantFrom("", "?x=1", "?q=done", "#f"),
  )
  .map(([scheme, h, p, slash, tail]) => `${scheme}://${h}${p}${slash && p !== "/" ? "/" : ""}${tail}`);
const globbed = (s: string, stars: boolean[]) =>
  s
    .split("/")
    .map((part, i) => (stars[i % stars.length] && part !== "" ? "*" : part))
    .join("/");
const urlPattern = fc.oneof(
  fc.constant(undefined),
  fc
    .tuple(
      path,
      fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
      fc.constantFrom("", "*", "/*", "?q=*"),
    )
    .map(([p, stars, end]) => `${globbed(p, stars)}${end}`),
  fc.tuple(host, path, fc.constantFrom("", "*")).map(([h, p, end]) => `${h}${p}${end}`),
  fc
    .tuple(fc.constantFrom("https://", "*://"), host, path, fc.constantFrom("", "*"))
    .map(([s, h, p, end]) => `${s}${h}${p}${end}`),
  fc.constantFrom("*/done", "*", "/checkout/*", "https://a.com/*"),
);
// Mostly of the events' type and without a URL pattern, so that the conditions decide often.
const goal = fc.record({
  eventType: fc.constantFrom("purchase", "purchase", "purchase", "signup"),
  urlPattern: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: urlPattern, weight: 1 },
  ),
  conditions: fc.option(conditions, { nil: null, freq: 5 }),
});
const event = fc.record({
  type: fc.constantFrom("purchase", "purchase", "purchase", "signup", "Purchase"),
  url: fc.oneof(url, fc.constantFrom("/checkout/done", "not a url", "")),
  data,
});

/** Every goal against every event: the oracle's answers, the evaluator's, and one engine query's. */
async function agree(goals: ConversionGoalDef[], events: MatchableEvent[]): Promise<void> {
  const want = goals.map((g) => events.map((e) => oracleMatches(g, e)));
  expect(goals.map((g) => events.map((e) => matchesConversionGoal(g, e)))).toEqual(want);
  // One query judges every goal (a column each) against every event (a row each).
  const q = new EngineQuery();
  const rows = events.map(
    (e, i) => `(${q.v(i)}::integer, ${q.v(e.type)}, ${q.v(e.url)}, ${q.v(JSON.stringify(e.data))})`,
  );
  const columns = goals.map(
    (g, k) => `coalesce(${predicatesSql(q, goalPredicates(g), "e")}, false) as g${k}`,
  );
  const [text, params] = q.bound(
    `select ${columns.join(", ")} from (values ${rows.join(", ")}) e(i, type, url, data) order by i`,
  );
  const got = await t.app.deps.engine.query<Record<string, boolean>>(text, params);
  expect(goals.map((_, k) => got.map((r) => r[`g${k}`]))).toEqual(want);
}

describe("a conversion goal in the predicate language judges events as the old matcher did", () => {
  it("every operator against every kind of value (all pairs), in memory and in the engine's SQL", async () => {
    const words = ["pro", "Pro", "PRO plan", "a%b", "a_b", "x\\y", "49", "3.5", "-2", "", " "];
    const values: (string | number | boolean | null)[] = [...words, -2, 3.5, 10, 49, true, false, null];
    const conds: ConditionT[] = [
      ...values,
      ...values.flatMap((v) => [{ eq: v }, { neq: v }]),
      ...[-2, 3.5, 10, 49].flatMap((n) => [{ gt: n }, { gte: n }, { lt: n }, { lte: n }]),
      ...["pro", "R", "%", "_", "\\", "a", "4"].map((c) => ({ contains: c })),
      { in: [] },
      { in: ["pro", 49, null] },
      { in: [true, "3.5"] },
      { exists: true },
      { exists: false },
      { gte: 3.5, lt: 49 },
    ];
    // Every condition on a top-level property; a few on a nested one (the path is read alike).
    const nested: ConditionT[] = [
      "pro",
      49,
      null,
      { exists: true },
      { gt: 3.5 },
      { contains: "r" },
      { neq: "pro" },
    ];
    const goals = [
      ...conds.map((c) => ({ eventType: "purchase", conditions: { amount: c } })),
      ...nested.map((c) => ({ eventType: "purchase", conditions: { "meta.src": c } })),
    ];
    const events: MatchableEvent[] = [
      ...values.flatMap((v) => [{ amount: v }, { meta: { src: v } }]),
      {},
      { meta: "pro" },
      { meta: { src: { deeper: 1 } } },
    ].map((data) => ({ type: "purchase", url: "/", data }));
    for (let i = 0; i < goals.length; i += 40) await agree(goals.slice(i, i + 40), events);
  });

  it("each URL pattern over URLs of every shape, in memory and in the engine's SQL", async () => {
    const byUrl = urlPattern.map((p) => ({ eventType: "purchase", urlPattern: p }));
    const ev = event.map((e) => ({ ...e, type: "purchase" }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(byUrl, { minLength: 1, maxLength: 8 }),
        fc.array(ev, { minLength: 1, maxLength: 12 }),
        agree,
      ),
      { numRuns: 40 },
    );
  });

  it("whole goals (type, URL pattern, conditions), in memory and in the engine's SQL", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(goal, { minLength: 1, maxLength: 6 }),
        fc.array(event, { minLength: 1, maxLength: 12 }),
        agree,
      ),
      { numRuns: 30 },
    );
  });
});
