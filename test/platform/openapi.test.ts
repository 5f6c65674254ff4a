import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../helpers/app.js";

const REDOCLY = fileURLToPath(new URL("../../node_modules/@redocly/cli/bin/cli.js", import.meta.url));

/** Warnings of the recommended ruleset we accept; each reason is in docs/decisions/platform.md (API documentation). */
const ACCEPTED_WARNINGS = [
  "info-license #/info",
  // /api/webhooks/sources/{source} (DESIGN.md) vs /api/webhooks/{id}/deliveries: paths are fixed.
  "no-ambiguous-paths #/paths/~1api~1webhooks~1sources~1{source}",
  // Redirect-only operations (OAuth): their success is a 302.
  "operation-2xx-response #/paths/~1api~1connectors~1{type}~1auth/get/responses",
  "operation-2xx-response #/paths/~1api~1connectors~1{type}~1callback/get/responses",
];

/** Public by the spec (plus sign-in): no credentials of ours. */
const PUBLIC = [
  "GET /api/connectors/{type}/callback",
  "GET /api/experiments/active",
  "GET /api/features/{clientKey}",
  // An invitation, a shared dashboard: the unguessable token in the path is the credential.
  "GET /api/invites/{token}",
  "GET /api/shared/dashboards/{token}",
  "GET /api/svc-js",
  // posthog-js's remote config: the public key is in the path.
  "GET /array/{token}/config",
  "GET /array/{token}/config.js",
  "GET /sub/{clientKey}",
  // Segment's settings for analytics.js: the public key is in the path.
  "GET /v1/projects/{writeKey}/settings",
  "POST /api/auth/login",
  "POST /api/auth/logout",
  "POST /api/eval/{clientKey}",
  "POST /api/events",
  "POST /api/identity/stitch",
  "POST /api/invites/{token}",
  "POST /api/webhooks/{source}",
  // PostHog's capture API: the key is in the body, as on POST /api/events.
  "POST /batch",
  "POST /decide",
  "POST /e",
  // PostHog's flags: the key is in the body, as on its capture API.
  "POST /flags",
];
const TRANSACTIONAL = ["POST /api/transactional/webhooks/provider", "POST /api/v1/transactional/send"];

type Operation = {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; required?: boolean }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
};

let t: TestApp;
let a: Tenant;
let doc: { servers?: { url: string }[]; paths: Record<string, Record<string, Operation>> } & Record<
  string,
  any
>;
const operations: [string, Operation][] = [];

beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  const res = await t.app.inject({ url: "/openapi.json" });
  expect(res.statusCode).toBe(200);
  doc = res.json();
  for (const [p, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) operations.push([`${method.toUpperCase()} ${p}`, op]);
});
afterAll(async () => t.close());

function redoclyLint(file: string): Promise<{ problems: Problem[] }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [REDOCLY, "lint", file, "--extends=recommended", "--format=json", "--max-problems=1000"],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        maxBuffer: 64 * 1024 * 1024,
      },
      // Exit code 1 means problems were found: the report is on stdout either way.
      (err, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(err ?? new Error(`redocly printed no report: ${stderr}`));
        }
      },
    );
  });
}
type Problem = { ruleId: string; severity: string; message: string; location: { pointer: string }[] };
const describeProblem = (p: Problem) => `${p.ruleId} ${p.location[0]?.pointer}`;

describe("/openapi.json", () => {
  it("has no errors with Redocly's recommended ruleset and only the accepted warnings", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lift-openapi-"));
    try {
      const file = path.join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(doc));
      const { problems } = await redoclyLint(file);
      const errors = problems.filter((p) => p.severity === "error");
      expect(errors.map((p) => `${describeProblem(p)}: ${p.message}`)).toEqual([]);
      const warnings = problems.filter((p) => p.severity === "warn").map(describeProblem);
      expect(warnings.sort()).toEqual([...ACCEPTED_WARNINGS].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("gives every operation a unique operationId, a summary, security and its 4xx responses", () => {
    expect(operations.length).toBeGreaterThan(60);
    const gaps: string[] = [];
    for (const [name, op] of operations) {
      if (!op.operationId) gaps.push(`${name}: operationId`);
      if (!op.summary?.trim()) gaps.push(`${name}: summary`);
      if (!Array.isArray(op.security)) gaps.push(`${name}: security`);
      if (!Object.keys(op.responses).some((s) => /^4\d\d$/.test(s))) gaps.push(`${name}: 4xx response`);
    }
    expect(gaps).toEqual([]);
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("states security as each route authenticates", () => {
    const by = (pred: (op: Operation) => boolean) =>
      operations
        .filter(([, op]) => pred(op))
        .map(([name]) => name)
        .sort();
    expect(by((op) => op.security?.length === 0)).toEqual(PUBLIC);
    expect(by((op) => op.security?.some((s) => "txBearer" in s) ?? false)).toEqual(TRANSACTIONAL);
    const security = (name: string) => operations.find(([n]) => n === name)![1].security;
    expect(security("GET /api/goals")).toEqual([{ projectKey: [] }, { projectBearer: [] }, { session: [] }]);
    expect(security("GET /api/workspace/users")).toEqual([{ session: [] }]);
    expect(security("GET /api/connectors/{type}/auth")).toEqual([{ session: [] }]);
    expect(security("POST /v1/batch")).toEqual([{ segmentWriteKey: [] }]);
    expect(security("POST /ofrep/v1/evaluate/flags")).toEqual([{ publicKeyBearer: [] }]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(
      [
        "projectBearer",
        "projectKey",
        "publicKeyBearer",
        "segmentWriteKey",
        "session",
        "txApiKey",
        "txBearer",
      ].sort(),
    );
  });

  it("documents errors with the shared schema of the route's error format", () => {
    expect(doc.components.schemas.Error.properties).toHaveProperty("code");
    expect(doc.components.schemas.TransactionalError.properties).toHaveProperty("error");
    for (const [name, op] of operations) {
      const expected =
        name === "POST /api/v1/transactional/send"
          ? "#/components/schemas/TransactionalError"
          : name.startsWith("POST /ofrep/")
            ? "#/components/schemas/OfrepError"
            : "#/components/schemas/Error";
      for (const [status, res] of Object.entries(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        expect(res.content?.["application/json"]?.schema?.$ref, `${name} ${status}`).toBe(expected);
      }
    }
    const send = operations.find(([n]) => n === "POST /api/v1/transactional/send")![1];
    expect(Object.keys(send.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "404",
      "409",
      "413",
      "415",
      "422",
      "429",
    ]);
    const patchExperiment = operations.find(([n]) => n === "PATCH /api/experiments")![1];
    expect(JSON.stringify(patchExperiment.responses["409"])).toContain("INVALID_TRANSITION");
  });

  it("has servers, and no tuple in the pre-3.1 form (items array with additionalItems)", () => {
    expect(doc.servers).toEqual([{ url: "/", description: "this server" }]);
    const oldTuples: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      if (Array.isArray(o.items) || "additionalItems" in o) oldTuples.push(at);
      for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
    };
    walk(doc, "#");
    expect(oldTuples).toEqual([]);
  });
});

type Parameter = {
  name: string;
  in: string;
  schema?: { enum?: string[]; anyOf?: { enum?: string[]; const?: string }[] };
};

/** A request to an operation with valid-looking path parameters and no body. */
const call = (name: string, op: Operation, headers: Record<string, string>) => {
  const [method, p] = name.split(" ") as [string, string];
  const url = p.replace(/\{([^}]+)\}/g, (_, param: string) => {
    const s = (op.parameters as Parameter[] | undefined)?.find(
      (q) => q.in === "path" && q.name === param,
    )?.schema;
    return s?.enum?.[0] ?? s?.anyOf?.[0]?.enum?.[0] ?? s?.anyOf?.[0]?.const ?? "x";
  });
  return t.app.inject({ method: method as "GET", url, headers });
};
const needsInput = (op: Operation) =>
  op.requestBody !== undefined || (op.parameters ?? []).some((p) => p.in === "query" && p.required);

describe("documented security is what the routes enforce", () => {
  it("a secured operation refuses a request without credentials with a documented 401 (or 400 for missing input)", async () => {
    const wrong: string[] = [];
    for (const [name, op] of operations) {
      if (!op.security?.length) continue;
      const res = await call(name, op, {});
      const ok = res.statusCode === 401 || (res.statusCode === 400 && needsInput(op));
      if (!ok || !op.responses[String(res.statusCode)]) wrong.push(`${name}: ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });

  it("a session-only operation refuses a project API key with a documented 403", async () => {
    const wrong: string[] = [];
    for (const [name, op] of operations) {
      if (JSON.stringify(op.security) !== JSON.stringify([{ session: [] }])) continue;
      const res = await call(name, op, { "x-api-key": a.apiKey });
      const ok = res.statusCode === 403 || (res.statusCode === 400 && needsInput(op));
      if (!ok || !op.responses[String(res.statusCode)]) wrong.push(`${name}: ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });
});
