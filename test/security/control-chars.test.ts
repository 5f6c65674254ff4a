import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../helpers/app.js";

/**
 * Control characters (U+0000–U+001F, U+007F) in a query string or path are refused with 400
 * VALIDATION_ERROR on every route, naming the parameter: in values, in parameter names, and inside
 * the JSON of `?filter=`, where `\u0000` is escaped text until it is parsed. Before, a NUL in a
 * filter's property key reached SQLite's JSON path ("bad JSON path") and PostgreSQL's text
 * parameters, a 500. Walks /openapi.json, so a new route is covered when it is added.
 */
let t: TestApp;
let a: Tenant;
let txKey: string;
let operations: { method: string; path: string; op: any }[];
let schemas: Record<string, any>;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  a = await t.tenant({ tier: "scale" });
  txKey = (await a.post("/api/transactional-api-keys", { name: "control" }, { as: "admin" })).body.rawKey;
  // One stored event, so filtered reports reach the database with the filter's keys.
  const sent = await a.post(
    "/api/events",
    { projectKey: a.publicKey, visitorId: "v1", type: "pageview", url: "https://shop.example/" },
    { as: "none", headers: { "user-agent": BROWSER_UA } },
  );
  expect(sent.status).toBe(200);
  const doc = (t.app as unknown as { swagger: () => any }).swagger();
  schemas = doc.components.schemas;
  operations = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});
afterAll(async () => t?.close());

const CONTROLS = ["\u0000", "\u0001", "\u0009", "\u000a", "\u001f", "\u007f"];
const shown = (c: string) => `U+${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

function credentials(op: any): Record<string, string> {
  const schemes = new Set((op.security ?? []).flatMap((s: object) => Object.keys(s)));
  if (schemes.has("txBearer")) return { authorization: `Bearer ${txKey}` };
  if (schemes.has("projectKey")) return { "x-api-key": a.apiKey };
  if (schemes.has("session")) return { cookie: a.adminCookie };
  return {};
}

/** A route family with its own error format documents its 400 with that format's schema. */
const ownFormat = (op: any) => {
  const ref = op.responses?.["400"]?.content?.["application/json"]?.schema?.$ref;
  return ref !== undefined && ref !== "#/components/schemas/Error";
};

/** A 400 in the route family's format whose message names `field`; else what is wrong. */
function problem(op: any, status: number, text: string, field: string): string | null {
  if (status !== 400) return `status ${status}: ${text.slice(0, 160)}`;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `body is not JSON: ${text.slice(0, 80)}`;
  }
  if (ownFormat(op)) {
    // Its documented 400 schema's required fields (email's {error: {code, message, requestId}},
    // OFREP's {errorCode, errorDetails, requestId}), and the field named somewhere in it.
    const schema = schemas[op.responses["400"].content["application/json"].schema.$ref.split("/").pop()];
    const missing = (schema.required ?? []).filter((k: string) => body?.[k] === undefined);
    if (missing.length > 0 || !text.includes("requestId"))
      return `not the route's own format (missing ${missing.join(", ")}): ${text.slice(0, 160)}`;
    return text.includes(JSON.stringify(field).slice(1, -1))
      ? null
      : `message does not name ${field}: ${text}`;
  }
  const keys = Object.keys(body ?? {}).sort();
  if (
    body?.code !== "VALIDATION_ERROR" ||
    body.status !== 400 ||
    typeof body.error !== "string" ||
    typeof body.requestId !== "string" ||
    keys.join() !== "code,error,requestId,status"
  )
    return `not the general format: ${text.slice(0, 160)}`;
  return body.error.includes(field) ? null : `message does not name ${field}: ${body.error}`;
}

/** Fails on any 5xx first (the worst outcome, named as such), then on any other problem. */
function expectNone(problems: string[]): void {
  expect(problems.filter((p) => / status 5\d\d:/.test(p)).slice(0, 30), "server errors").toEqual([]);
  expect(problems.slice(0, 30)).toEqual([]);
}

const fill = (path: string) => path.replace(/\{\w+\}/g, "x");
/** A value a parameter's schema takes: its first enum member (first alternative's), else text. */
const sample = (schema: any): string =>
  String(schema?.enum?.[0] ?? schema?.const ?? (schema?.anyOf ? sample(schema.anyOf[0]) : "x"));
/** The operation's required query parameters with a valid value, so only the one under test is wrong. */
const required = (op: any, except = "") =>
  (op.parameters ?? [])
    .filter((p: any) => p.in === "query" && p.required && p.name !== except)
    .map((p: any) => `${p.name}=${encodeURIComponent(sample(p.schema))}&`)
    .join("");
const filterWith = (key: string, value: string) => JSON.stringify([{ key, op: "is", value }]);

describe("control characters in query strings and paths", () => {
  it("every operation's query parameters refuse them in values and names", async () => {
    const problems: string[] = [];
    let requests = 0;
    const check = async (o: (typeof operations)[number], url: string, field: string) => {
      const res = await t.app.inject({ method: o.method as "GET", url, headers: credentials(o.op) });
      requests++;
      const p = problem(o.op, res.statusCode, res.body, field);
      if (p) problems.push(`${o.method} ${url.slice(0, 120)} ${p}`);
    };
    for (const o of operations) {
      const query = (o.op.parameters ?? []).filter((p: any) => p.in === "query");
      const base = fill(o.path);
      for (const c of CONTROLS) {
        for (const p of query)
          await check(
            o,
            `${base}?${required(o.op, p.name)}${p.name}=${encodeURIComponent(`a${c}b`)}`,
            `querystring.${p.name}`,
          );
        // A parameter name with one: also on routes without query parameters.
        await check(o, `${base}?${encodeURIComponent(`q${c}`)}=1`, "querystring");
      }
    }
    expect(requests).toBeGreaterThan(300);
    expectNone(problems);
  });

  it("every GET route with path parameters refuses them there", async () => {
    const problems: string[] = [];
    const routes = operations.filter((o) => o.method === "GET" && o.path.includes("{"));
    expect(routes.length).toBeGreaterThan(20);
    for (const o of routes) {
      for (const c of CONTROLS) {
        const url = o.path.replace(/\{\w+\}/g, encodeURIComponent(`a${c}b`));
        const name = /\{(\w+)\}/.exec(o.path)![1]!;
        const res = await t.app.inject({ method: "GET", url, headers: credentials(o.op) });
        const p = problem(o.op, res.statusCode, res.body, `params.${name}`);
        if (p) problems.push(`GET ${url} ${p}`);
      }
    }
    expectNone(problems);
  });

  it("a ?filter= whose JSON holds escaped control characters is refused, naming the condition", async () => {
    const problems: string[] = [];
    const filtered = operations.filter((o) =>
      (o.op.parameters ?? []).some((p: any) => p.in === "query" && p.name === "filter"),
    );
    expect(filtered.length).toBeGreaterThanOrEqual(6);
    for (const o of filtered) {
      for (const c of CONTROLS) {
        const cases: [string, string][] = [
          [filterWith(`event.a${c}b`, "x"), "query.filter[0].key"],
          [filterWith(`lead.a${c}b`, "x"), "query.filter[0].key"],
          [filterWith("country", `x${c}`), "query.filter[0].value"],
          [filterWith("event.plan", `x${c}`), "query.filter[0].value"],
        ];
        for (const [filter, field] of cases) {
          // JSON.stringify escapes C0 characters as \u00XX, so only the parsed filter holds them;
          // DEL it leaves as is, and the query string's own check names the parameter.
          const named = filter.includes("\u007f") ? "querystring.filter" : field;
          const url = `${o.path}?${required(o.op)}filter=${encodeURIComponent(filter)}`;
          const res = await t.app.inject({ method: "GET", url, headers: credentials(o.op) });
          const p = problem(o.op, res.statusCode, res.body, named);
          if (p) problems.push(`${shown(c)} GET ${o.path} ${filter} ${p}`);
        }
      }
    }
    expectNone(problems);
  });

  it("ordinary query strings still pass (tabs spelled out, non-ASCII, percent signs)", async () => {
    const ok = await a.get(
      `/api/analytics/summary?filter=${encodeURIComponent(filterWith("event.plan", "Pro – 100% ✓"))}`,
    );
    expect(ok.status).toBe(200);
    const leads = await a.get(`/api/leads?q=${encodeURIComponent("José \\t %00")}`);
    expect(leads.status).toBe(200);
  });
});

describe("ids a URL will name later", () => {
  it("a visitor's or lead's id with a control character is refused at ingest and identity, so none is stored that could not be erased", async () => {
    const basic = { authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}` };
    const sends = [
      a.post(
        "/api/events",
        { projectKey: a.publicKey, visitorId: "v\t1", type: "pageview", url: "https://shop.example/" },
        { as: "none", headers: { "user-agent": BROWSER_UA } },
      ),
      a.post(
        "/api/events",
        { projectKey: a.apiKey, userId: "lead\u0001", events: [{ type: "purchase" }] },
        { as: "none" },
      ),
      a.post("/v1/track", { anonymousId: "anon\n", event: "x" }, { as: "none", headers: basic }),
      a.post("/v1/identify", { userId: "u\u007f", anonymousId: "anon" }, { as: "none", headers: basic }),
      a.post("/api/identity", { visitorId: "v\u001f", leadId: "L" }),
      a.post("/api/identity", { visitorId: "v", leadId: "L\t" }),
    ];
    for (const res of await Promise.all(sends)) {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(/control characters/);
    }
  });
});
