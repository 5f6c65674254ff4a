import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type KeySource, authPlugin, bodyProjectKey } from "../../src/platform/auth/plugin.js";
import type { PrincipalResolver, ProjectRef } from "../../src/platform/auth/principal.js";
import { handleError } from "../../src/platform/errors.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

/**
 * The caller of every route family is set by platform/auth's guards, with its kind of key: the
 * rules (a public key's budgets per address, its events only filling properties) judge by it.
 */
const PROJECT: ProjectRef = { id: "prj_1", workspaceId: "ws_1" };
const KNOWN = new Set(["svc_pk_known", "svc_key_known"]);
let lookups: string[] = [];
const resolver: PrincipalResolver = {
  resolveApiKey: async (key) =>
    key === "svc_key_known"
      ? {
          kind: "apiKey",
          keyKind: "secret",
          keyId: "key_1",
          projectId: "prj_1",
          workspaceId: "ws_1",
          project: PROJECT,
        }
      : null,
  resolveSession: async () => null,
  resolveSessionProject: async () => null,
  resolvePublicKey: async (key) => {
    lookups.push(key);
    return KNOWN.has(key) ? PROJECT : null;
  },
  forgetKeys: () => {},
};

const WRITE_KEY: KeySource = {
  read: (req) => req.headers["x-write-key"],
  missing: "a write key is required",
  unknown: "unknown write key",
};
const CLIENT_KEY: KeySource = {
  read: (req) => (req.params as { key: string }).key,
  unknown: "unknown client key",
  publicOnly: "only the public key",
};

/** What a guard left on the request. */
const seen = async (req: FastifyRequest) => ({ principal: req.principal, rateLimitKey: req.rateLimitKey });

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  app.setErrorHandler(handleError);
  await app.register(authPlugin, {
    resolver,
    sessionKey: new Uint8Array(32),
    limits: { read: null, write: null },
  });
  app.post("/body", { preHandler: app.requireProjectKey(bodyProjectKey) }, seen);
  app.post("/write", { preValidation: app.requireProjectKey(WRITE_KEY) }, seen);
  app.get("/client/:key", { preHandler: app.requireProjectKey(CLIENT_KEY) }, seen);
  app.get("/project", { preHandler: app.requireProject("read") }, seen);
  app.post(
    "/tx",
    {
      onRequest: app.requireTransactionalKey(async (raw) =>
        raw === "svc_tx_known" ? { keyId: "tx_1", workspaceId: "ws_1" } : null,
      ),
    },
    seen,
  );
  await app.ready();
});
afterAll(async () => app.close());

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url, payload: body as object, headers });

describe("the principal carries its key kind, set by platform/auth's guards", () => {
  it("a body's project key: public or secret by its prefix, budgets per secret key or per public key and address", async () => {
    const pub = await post("/body", { projectKey: "svc_pk_known" });
    expect(pub.json()).toEqual({
      principal: {
        kind: "projectKey",
        keyKind: "public",
        key: "svc_pk_known",
        workspaceId: "ws_1",
        project: PROJECT,
      },
      rateLimitKey: "pk:svc_pk_known:127.0.0.1",
    });
    const secret = await post("/body", { projectKey: "svc_key_known" });
    expect(secret.json()).toMatchObject({
      principal: { kind: "projectKey", keyKind: "secret" },
      rateLimitKey: "key:svc_key_known",
    });
    const unknown = await post("/body", { projectKey: "svc_pk_nope" });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ code: "UNAUTHORIZED", error: "unknown projectKey" });
    expect((await post("/body", {})).json()).toMatchObject({ error: "unknown projectKey" });
  });

  it("a key from elsewhere (Segment's write key, the flag SDK's path): its own messages, no lookup past 200 characters", async () => {
    expect((await post("/write", {})).json()).toMatchObject({ error: "a write key is required" });
    lookups = [];
    const long = await post("/write", {}, { "x-write-key": `svc_pk_${"x".repeat(200)}` });
    expect(long.json()).toMatchObject({ error: "unknown write key" });
    expect(lookups).toEqual([]);
    const ok = await post("/write", {}, { "x-write-key": "svc_key_known" });
    expect(ok.json().principal).toMatchObject({ kind: "projectKey", keyKind: "secret" });

    const secret = await app.inject({ method: "GET", url: "/client/svc_key_known" });
    expect(secret.statusCode).toBe(401);
    expect(secret.json()).toMatchObject({ error: "only the public key" });
    expect(lookups).toEqual(["svc_key_known"]);
    const pub = await app.inject({ method: "GET", url: "/client/svc_pk_known" });
    expect(pub.json().principal).toMatchObject({ kind: "projectKey", keyKind: "public" });
  });

  it("a secret key in a header is `secret`; a transactional key is `transactional`, checked before the body", async () => {
    const key = await app.inject({
      method: "GET",
      url: "/project",
      headers: { "x-api-key": "svc_key_known" },
    });
    expect(key.json()).toEqual({
      principal: {
        kind: "apiKey",
        keyKind: "secret",
        keyId: "key_1",
        projectId: "prj_1",
        workspaceId: "ws_1",
        project: PROJECT,
      },
      rateLimitKey: "key:key_1",
    });
    const tx = await app.inject({
      method: "POST",
      url: "/tx",
      headers: { authorization: "Bearer svc_tx_known", "content-type": "application/json" },
      payload: "{not json",
    });
    expect(tx.statusCode).toBe(400);
    const none = await app.inject({ method: "POST", url: "/tx", payload: "{not json" });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({
      error: "missing or invalid svc_tx credential: send Authorization: Bearer svc_tx_…",
    });
    const revoked = await post("/tx", {}, { "x-api-key": "svc_tx_revoked" });
    expect(revoked.json()).toMatchObject({ error: "invalid or revoked transactional API key" });
    const ok = await post("/tx", {}, { "x-api-key": "svc_tx_known" });
    expect(ok.json()).toEqual({
      principal: {
        kind: "txKey",
        keyKind: "transactional",
        keyId: "tx_1",
        workspaceId: "ws_1",
        project: null,
      },
      rateLimitKey: "tx:tx_1",
    });
  });
});

describe("the workspace's resolver names the kind of the keys it resolves", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it("a project API key is `secret`", async () => {
    const a = await t.tenant();
    expect(await t.app.principalResolver.resolveApiKey(a.apiKey)).toMatchObject({
      kind: "apiKey",
      keyKind: "secret",
      projectId: a.projectId,
    });
  });
});
