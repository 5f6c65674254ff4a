import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, call, type LiftProcess, type LiftStore, liftStore } from "../hardening/lift-process.js";
import { type TestApp, startTestApp } from "../helpers/app.js";

/**
 * Issue 31, item 10: settings that are the operator's stay the operator's. Before, /metrics
 * answered anyone, a workspace admin could raise their own plan tier (60 → 12,000 sends a minute),
 * and the session cookie went without Secure whenever PUBLIC_URL was unset.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

describe("/metrics", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());
  const metrics = (opts: { remoteAddress?: string; headers?: Record<string, string> }) =>
    t.app.inject({ url: "/metrics", remoteAddress: opts.remoteAddress, headers: opts.headers });

  it("without METRICS_TOKEN answers a direct loopback client only", async () => {
    expect((await metrics({ remoteAddress: "127.0.0.1" })).statusCode).toBe(200);
    expect((await metrics({ remoteAddress: "::1" })).statusCode).toBe(200);
    const remote = await metrics({ remoteAddress: "203.0.113.9" });
    expect(remote.statusCode).toBe(401);
    expect(remote.json()).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    expect(remote.body).not.toContain("process_cpu");
    // Through a local reverse proxy: the socket is loopback, the client is not.
    const proxied = await metrics({
      remoteAddress: "127.0.0.1",
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    expect(proxied.statusCode).toBe(401);
  });

  it("with METRICS_TOKEN needs it as a bearer token, from anywhere", async () => {
    const withToken = await startTestApp({ metricsToken: "metrics-token-of-the-operator" });
    try {
      const m = (headers: Record<string, string>, remoteAddress = "203.0.113.9") =>
        withToken.app.inject({ url: "/metrics", remoteAddress, headers });
      expect((await m({})).statusCode).toBe(401);
      expect((await m({}, "127.0.0.1")).statusCode).toBe(401);
      expect((await m({ authorization: "Bearer wrong" })).statusCode).toBe(401);
      const ok = await m({ authorization: "Bearer metrics-token-of-the-operator" });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain("http_request_duration_seconds");
    } finally {
      await withToken.close();
    }
  });
});

describe("the plan tier and the session cookie", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it("a workspace admin cannot change the tier (403); renaming still works and the same tier is accepted", async () => {
    const a = await t.tenant();
    const raise = await a.patch("/api/workspace", { tier: "scale" }, { as: "admin" });
    expect(raise.status).toBe(403);
    expect(raise.body.error).toMatch(/operator/);
    expect((await a.get("/api/workspace", { as: "admin" })).body.tier).toBe("free");
    const rename = await a.patch("/api/workspace", { name: "Renamed", tier: "free" }, { as: "admin" });
    expect(rename.status).toBe(200);
    expect(rename.body).toMatchObject({ name: "Renamed", tier: "free" });
  });

  it("the cookie is Secure except on plain HTTP to a loopback host", async () => {
    const a = await t.tenant();
    const login = (headers: Record<string, string>) =>
      t.app.inject({
        method: "POST",
        url: "/api/auth/login",
        headers,
        payload: { email: a.admin.email, password: "correct horse battery" },
      });
    const cookie = async (headers: Record<string, string>) =>
      String((await login(headers)).headers["set-cookie"]);
    expect(await cookie({ host: "lift.example.com" })).toMatch(/; Secure/);
    expect(await cookie({ host: "192.0.2.10:3000" })).toMatch(/; Secure/);
    expect(await cookie({ host: "localhost:3000" })).not.toMatch(/; Secure/);
    expect(await cookie({ host: "127.0.0.1:3000" })).not.toMatch(/; Secure/);
    expect(await cookie({ host: "localhost:3000" })).toMatch(/HttpOnly; SameSite=Lax/);
  });
});

describe("lift set-tier", () => {
  let store: LiftStore;
  let lift: LiftProcess;
  beforeAll(async () => {
    store = await liftStore("tier");
    lift = await store.start();
  }, 90_000);
  afterAll(async () => store?.dispose());

  it("sets a workspace's tier by an admin's email; the workspace sees it", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: store.dataDir };
    if (store.databaseUrl) env.DATABASE_URL = store.databaseUrl;
    else delete env.DATABASE_URL;
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ["bin/lift.mjs", ...args], { cwd: ROOT, env }).then(
        (r) => ({ code: 0, out: r.stdout }),
        (e: { code: number; stderr: string }) => ({ code: e.code, out: e.stderr }),
      );
    const done = await run(["set-tier", ADMIN.email, "growth"]);
    expect(done).toMatchObject({ code: 0 });
    expect(done.out).toMatch(/is now on the growth tier/);
    expect(await run(["set-tier", ADMIN.email, "platinum"])).toMatchObject({ code: 2 });
    expect(await run(["set-tier", "nobody@example.com", "pro"])).toMatchObject({ code: 1 });
    const signIn = await call(lift.base, "POST", "/api/auth/login", { body: ADMIN });
    const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!;
    const ws = await call(lift.base, "GET", "/api/workspace", { headers: { cookie } });
    expect(ws.body.tier).toBe("growth");
  }, 60_000);
});
