import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";
import { fromSchema } from "./fuzz-arbitraries.js";

/**
 * Requests generated from /openapi.json for every operation — values drawn from each parameter's
 * and body's JSON Schema, mixed with hostile ones — plus a fixed set of hostile requests per route
 * (deep nesting, 1e999, __proto__ keys, invalid UTF-8, a 10 MB body, wrong content types, bad
 * percent-encoding, duplicate query parameters). No answer may be a 5xx, the server must keep
 * answering, and every error must be in its endpoint's format. Seeded: FUZZ_SEED replays a run,
 * FUZZ_RUNS sets the generated requests per operation.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

interface Operation {
  method: string;
  path: string;
  op: any;
}

let t: TestApp;
let a: Tenant;
let txKey: string;
let operations: Operation[];
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  a = await t.tenant({ tier: "scale" });
  const minted = await a.post("/api/transactional-api-keys", { name: "fuzz" }, { as: "admin" });
  txKey = minted.body.rawKey;
  const belief = await a.post("/api/beliefs", { statement: "Fuzzing finds nothing" });
  const experiment = await a.post("/api/experiments", {
    name: "Fuzz",
    targetUrl: "https://shop.example/",
    variants: [{ name: "control" }, { name: "b" }],
  });
  const webhook = await a.post("/api/webhooks", {
    url: "https://hooks.example.com/fuzz",
    events: ["lead.created"],
  });
  const sent = await a.post(
    "/api/v1/transactional/send",
    { to: "fuzz@sandbox.svc.test", subject: "Fuzz", html: "<p>x</p>" },
    { as: "none", headers: { authorization: `Bearer ${txKey}` } },
  );
  Object.assign(knownIds, {
    "/api/beliefs/": belief.body.id,
    "/api/experiments/": experiment.body.id,
    "/api/webhooks/": webhook.body.id,
    "/api/projects/": a.projectId,
    "/api/transactional/sends/": sent.body.send_id,
    "/api/communications/": "welcome",
  });
  const doc = (t.app as unknown as { swagger: () => any }).swagger();
  operations = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});
afterAll(async () => t?.close());

function credentials(op: any): Record<string, string> {
  const schemes = new Set((op.security ?? []).flatMap((s: object) => Object.keys(s)));
  if (schemes.has("txBearer")) return { authorization: `Bearer ${txKey}` };
  if (schemes.has("projectKey")) return { "x-api-key": a.apiKey };
  if (schemes.has("session")) return { cookie: a.adminCookie };
  if (schemes.has("publicKeyBearer")) return { authorization: `Bearer ${a.publicKey}` };
  return {};
}

/** OFREP's endpoints answer OFREP's error format `{errorCode, errorDetails}`. */
const isOfrep = (op: any) => (op.security ?? []).some((s: object) => "publicKeyBearer" in s);

const isTransactional = (op: any) =>
  (op.security ?? []).some((s: object) => "txBearer" in s) || op.operationId === "providerWebhook";

/** Any error must be the spec's `{error, code, status}`, or `{error: {code, message}}` for the tx API. */
function errorShapeProblem(op: any, status: number, body: string, contentType: string): string | null {
  if (status < 400) return null;
  if (!contentType.includes("json")) return `error is ${contentType || "untyped"}, not JSON`;
  let parsed: any;
  try {
    parsed = JSON.parse(body);
  } catch {
    return "error body is not JSON";
  }
  // A path the router cannot decode is refused before any route is known: the general format.
  if (isOfrep(op) && parsed?.code !== "VALIDATION_ERROR")
    return typeof parsed?.errorCode === "string" && typeof parsed?.errorDetails === "string"
      ? null
      : "malformed OFREP error";
  if (typeof parsed?.error === "object" && parsed.error !== null) {
    if (!isTransactional(op)) return "transactional error format on a general endpoint";
    return typeof parsed.error.code === "string" && typeof parsed.error.message === "string"
      ? null
      : "malformed transactional error";
  }
  if (typeof parsed?.error !== "string" || typeof parsed?.code !== "string") return "missing error/code";
  if (parsed.status !== status) return `status field ${parsed.status} ≠ ${status}`;
  return null;
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** Real ids of the fuzzed workspace by the path they appear in (filled in beforeAll). */
const knownIds: Record<string, string> = {};
const knownFor = (path: string, name: string): string | undefined => {
  const prefix = path.slice(0, path.indexOf(`{${name}}`));
  return knownIds[prefix];
};

function fillPath(path: string, params: Record<string, unknown>): string {
  return path.replace(/\{(\w+)\}/g, (_, name) => {
    const text = String(params[name] ?? knownFor(path, name) ?? "x");
    try {
      return encodeURIComponent(text);
    } catch {
      return "%ED%A0%80"; // a lone surrogate: sent as the invalid UTF-8 it would be
    }
  });
}

function generated(o: Operation): fc.Arbitrary<Sent> {
  const params: any[] = o.op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === "path");
  const queryParams = params.filter((p) => p.in === "query");
  const bodySchema = o.op.requestBody?.content?.["application/json"]?.schema;
  return fc
    .record({
      // Path parameters: the workspace's real ids half the time, so handlers run past the lookup.
      path: fc.record(
        Object.fromEntries(
          pathParams.map((p) => [
            p.name,
            knownFor(o.path, p.name)
              ? fc.oneof(fc.constant(knownFor(o.path, p.name)), fromSchema(p.schema))
              : fromSchema(p.schema),
          ]),
        ),
      ),
      query: fc.record(Object.fromEntries(queryParams.map((p) => [p.name, fromSchema(p.schema)])), {
        requiredKeys: [],
      }),
      body: bodySchema ? fromSchema(bodySchema) : fc.constant(undefined),
      duplicateQuery: fc.boolean(),
    })
    .map(({ path, query, body, duplicateQuery }) => {
      // Public endpoints take the project's key in the body: half the draws carry a real one, so
      // they get past the key check into validation and storage.
      if (body && typeof body === "object" && "projectKey" in body && Math.random() < 0.5)
        (body as Record<string, unknown>).projectKey = Math.random() < 0.5 ? a.publicKey : a.apiKey;
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) {
        const text = typeof v === "string" ? v : JSON.stringify(v);
        qs.append(k, text);
        if (duplicateQuery) qs.append(k, text);
      }
      const q = qs.toString();
      const headers: Record<string, string> = { ...credentials(o.op) };
      if (body !== undefined) headers["content-type"] = "application/json";
      if (isTransactional(o.op)) headers["idempotency-key"] = `fuzz-${Math.floor(Math.random() * 1e9)}`;
      return {
        method: o.method,
        url: fillPath(o.path, path) + (q ? `?${q}` : ""),
        headers,
        payload: body === undefined ? undefined : JSON.stringify(body),
      };
    });
}

const TEN_MB = Buffer.alloc(10 * 1024 * 1024, 0x61);
/** A value that satisfies `schema` (first enum member, minimum, every property present). */
function validSample(schema: any): unknown {
  if (!schema) return "x";
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alt = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alt)) return validSample(alt.find((x: any) => x.type !== "null") ?? alt[0]);
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case "string":
      if (schema.format === "email") return "fuzz@example.com";
      if (schema.format === "uri") return "https://shop.example/";
      if (schema.format === "date") return "2030-01-01";
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: schema.minItems ?? 1 }, () => validSample(schema.items));
    default:
      return Object.fromEntries(
        Object.entries<any>(schema.properties ?? {}).map(([k, v]) => [k, validSample(v)]),
      );
  }
}

/**
 * Raw JSON bodies with a hostile value in place of each top-level property (and of `data`) of a
 * realistic body, so it gets past the fields checked first: nesting 10,000 deep, and 1e999.
 */
function hostileFields(o: Operation): string[] {
  const body = o.op.requestBody?.content?.["application/json"]?.schema;
  const shapes: any[] = (body?.anyOf ?? body?.oneOf ?? [body]).filter((x: any) => x?.properties);
  const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
  return shapes.flatMap((schema) => {
    const realistic = {
      ...(validSample(schema) as Record<string, unknown>),
      ...(schema.properties.projectKey ? { projectKey: a.publicKey } : {}),
      ...(schema.properties.visitorId ? { visitorId: "fuzz-visitor" } : {}),
      ...(schema.properties.url ? { url: "https://shop.example/" } : {}),
    };
    const keys = Object.keys(schema.properties).filter((k) => k !== "projectKey");
    return keys.flatMap((k) => {
      const text = JSON.stringify({ ...realistic, [k]: "__HOSTILE__" });
      return [text.replace('"__HOSTILE__"', deep), text.replace('"__HOSTILE__"', "1e999")];
    });
  });
}

function hostile(o: Operation): Sent[] {
  const base = fillPath(o.path, {});
  const json = { ...credentials(o.op), "content-type": "application/json" };
  const withBody = (payload: string | Buffer, headers: Record<string, string> = json): Sent => ({
    method: o.method,
    url: base,
    headers,
    payload,
  });
  const out: Sent[] = [
    { method: o.method, url: `${base}?a=%E0%A4%A&a=%&b=%00`, headers: credentials(o.op) },
    {
      method: o.method,
      url: o.path.includes("{") ? o.path.replace(/\{\w+\}/g, "%E0%A4%A") : `${base}/%`,
      headers: credentials(o.op),
    },
  ];
  if (o.method !== "GET" && o.method !== "DELETE") {
    out.push(
      withBody(`${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`),
      withBody('{"projectKey":1e999,"id":-1e400,"sampleSize":1e999}'),
      withBody('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
      withBody(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d])),
      withBody(TEN_MB),
      withBody("not json"),
      withBody("null"),
      withBody("[]"),
      withBody('"string"'),
      withBody("a=1&b=2", { ...credentials(o.op), "content-type": "application/x-www-form-urlencoded" }),
      withBody("--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--", {
        ...credentials(o.op),
        "content-type": "multipart/form-data; boundary=x",
      }),
      withBody('{"a":1}', { ...credentials(o.op), "content-type": "text/plain" }),
      ...hostileFields(o).map((text) => withBody(text)),
    );
  }
  return out;
}

describe(`fuzzing every operation of /openapi.json (seed ${SEED})`, () => {
  it("answers no 5xx, keeps running, and every error is in its endpoint's format", async () => {
    const problems: string[] = [];
    let requests = 0;
    const send = async (o: Operation, s: Sent) => {
      const res = await t.app.inject({
        method: s.method as "GET",
        url: s.url,
        headers: s.headers,
        payload: s.payload,
      });
      requests++;
      const where = `${s.method} ${s.url.slice(0, 100)} ${typeof s.payload === "string" ? s.payload.slice(0, 80) : s.payload ? "<bytes>" : ""}`;
      if (res.statusCode >= 500) problems.push(`${res.statusCode} ${where}: ${res.body.slice(0, 160)}`);
      const shape = errorShapeProblem(
        o.op,
        res.statusCode,
        res.body,
        String(res.headers["content-type"] ?? ""),
      );
      if (shape) problems.push(`${res.statusCode} ${where}: ${shape}`);
    };
    for (const [i, o] of operations.entries()) {
      for (const s of hostile(o)) await send(o, s);
      const samples = fc.sample(generated(o), { numRuns: RUNS, seed: SEED + i });
      for (const s of samples) await send(o, s);
    }
    const alive = await t.app.inject({ method: "GET", url: "/healthz" });
    console.log(
      `fuzz (seed ${SEED}): ${operations.length} operations, ${requests} requests, ${problems.length} problems`,
    );
    expect(alive.statusCode).toBe(200);
    expect(problems.slice(0, 40), `replay with FUZZ_SEED=${SEED}`).toEqual([]);
  }, 240_000);
});
