import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { FastifyInstance, InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { DASHBOARD_CSP } from "../../src/modules/dashboard/module.js";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

/**
 * The web-facing defences: session cookie flags, CSRF, CORS only on the public endpoints, security
 * headers, compression, sign-in throttling, and no secret in the logs at info level.
 */
let t: TestApp;
let app: FastifyInstance;
const logLines: string[] = [];
let a: Tenant;
beforeAll(async () => {
  // Behind a proxy that sets X-Forwarded-For and -Proto (TRUST_PROXY), as HTTPS deployments run.
  t = await startTestApp({ allowPrivateWebhookTargets: true, trustProxy: true });
  // A second node over the same database that logs at info into memory: every request below goes
  // through it, so its log is the run's log.
  app = await buildApp(t.config, {
    handle: t.app.dbHandle,
    logger: {
      level: "info",
      stream: new Writable({
        write(chunk, _enc, cb) {
          logLines.push(String(chunk));
          cb();
        },
      }),
    } as never,
  });
  await app.ready();
  a = await t.tenant({ tier: "scale" });
});
afterAll(async () => {
  await app?.close();
  await t?.close();
});

const inject = (opts: InjectOptions) => app.inject(opts);
const PASSWORD = "correct horse battery";

describe("session cookie and CSRF", () => {
  it("the session cookie is HttpOnly, SameSite=Lax, Path=/, and Secure once served over HTTPS", async () => {
    const res = await inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: a.admin.email, password: PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    const cookie = String(res.headers["set-cookie"]);
    expect(cookie).toMatch(/svc_session=[^;]+/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    // localhost over http: browsers would drop a Secure cookie.
    expect(cookie).not.toMatch(/Secure/);
    for (const headers of [{ host: "lift.example.com" }, { "x-forwarded-proto": "https" }]) {
      const res2 = await inject({
        method: "POST",
        url: "/api/auth/login",
        headers,
        payload: { email: a.admin.email, password: PASSWORD },
      });
      expect(String(res2.headers["set-cookie"])).toMatch(/Secure/);
    }
  });

  it.each([
    ["application/x-www-form-urlencoded", "statement=forged"],
    ["text/plain", '{"statement":"forged"}'],
    [
      "multipart/form-data; boundary=x",
      '--x\r\nContent-Disposition: form-data; name="statement"\r\n\r\nforged\r\n--x--\r\n',
    ],
  ])(
    "a cross-site %s POST with a valid session cookie is refused and changes nothing",
    async (type, payload) => {
      const before = (await a.get("/api/beliefs")).body.length;
      const res = await inject({
        method: "POST",
        url: "/api/beliefs",
        headers: { cookie: a.adminCookie, "content-type": type, origin: "https://evil.example" },
        payload,
      });
      expect(res.statusCode).toBe(415);
      expect(res.json()).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", status: 415 });
      expect((await a.get("/api/beliefs")).body.length).toBe(before);
    },
  );
});

describe("CORS", () => {
  it("answers a preflight only on the public endpoints", async () => {
    const pre = (url: string) =>
      inject({
        method: "OPTIONS",
        url,
        headers: {
          origin: "https://shop.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
    for (const url of ["/api/events", "/api/identity/stitch"]) {
      expect((await pre(url)).headers["access-control-allow-origin"], url).toBe("*");
    }
    for (const url of ["/api/goals", "/api/beliefs", "/api/auth/login", "/api/workspace"]) {
      expect((await pre(url)).headers["access-control-allow-origin"], url).toBeUndefined();
    }
    const read = await inject({
      url: "/api/goals",
      headers: { "x-api-key": a.apiKey, origin: "https://evil.example" },
    });
    expect(read.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("security headers", () => {
  it("API answers carry nosniff, a referrer policy and a CSP that allows no framing; HSTS only over HTTPS", async () => {
    const res = await inject({ url: "/api/goals", headers: { "x-api-key": a.apiKey } });
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(res.headers["content-security-policy"]).toBe("default-src 'none';frame-ancestors 'none'");
    expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(res.headers["strict-transport-security"]).toBeUndefined();
    const overHttps = await inject({ url: "/healthz", headers: { "x-forwarded-proto": "https" } });
    expect(overHttps.headers["strict-transport-security"]).toMatch(/max-age=31536000/);
    // Errors too.
    const missing = await inject({ url: "/api/nothing-here" });
    expect(missing.headers["x-content-type-options"]).toBe("nosniff");
    // Ingest, the hot path, answers beacons with nosniff alone, uncompressed.
    const ingest = await inject({
      method: "POST",
      url: "/api/events",
      headers: { "content-type": "application/json", "accept-encoding": "br" },
      payload: { projectKey: a.publicKey, visitorId: "v1", type: "pageview", url: "https://shop.example/" },
    });
    expect(ingest.statusCode).toBe(200);
    expect(ingest.headers["x-content-type-options"]).toBe("nosniff");
    expect(ingest.headers["content-encoding"]).toBeUndefined();
  });

  it("the dashboard and /docs keep their own CSP; the snippet stays loadable from other origins", async () => {
    const shell = await inject({ url: "/", headers: { accept: "text/html" } });
    expect(shell.headers["content-security-policy"]).toBe(DASHBOARD_CSP);
    expect(shell.headers["x-content-type-options"]).toBe("nosniff");
    const docs = await inject({ url: "/docs" });
    expect(String(docs.headers["content-security-policy"])).toContain("script-src 'self' 'unsafe-inline'");
    const js = await inject({ url: `/api/svc-js?key=${a.publicKey}` });
    expect(js.headers["cross-origin-resource-policy"]).toBe("cross-origin");
  });
});

describe("compression", () => {
  it("compresses the snippet by Accept-Encoding with Vary, and leaves tiny answers alone", async () => {
    const url = `/api/svc-js?key=${a.publicKey}`;
    const plain = await inject({ url });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const br = await inject({ url, headers: { "accept-encoding": "br, gzip" } });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 1.5);
    const gz = await inject({ url, headers: { "accept-encoding": "gzip" } });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    const small = await inject({ url: "/healthz", headers: { "accept-encoding": "br" } });
    expect(small.headers["content-encoding"]).toBeUndefined();
  });

  it("serves the dashboard's precompressed assets as built, not compressed twice", async () => {
    const dist = path.resolve(import.meta.dirname, "../../web/dist/assets");
    const js = readdirSync(dist).find((f) => f.endsWith(".js") && readdirSync(dist).includes(`${f}.br`))!;
    const res = await inject({ url: `/assets/${js}`, headers: { "accept-encoding": "br" } });
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.rawPayload.equals(readFileSync(path.join(dist, `${js}.br`)))).toBe(true);
    expect(brotliDecompressSync(res.rawPayload).equals(readFileSync(path.join(dist, js)))).toBe(true);
  });
});

describe("sign-in throttling", () => {
  const login = (email: string, password: string, ip: string, to: FastifyInstance = app) =>
    to.inject({
      method: "POST",
      url: "/api/auth/login",
      headers: { "x-forwarded-for": ip },
      payload: { email, password },
    });

  it("5 wrong passwords from one address: that address waits (429, Retry-After), the user elsewhere does not", async () => {
    const u = await t.tenant();
    for (let i = 0; i < 5; i++)
      expect((await login(u.admin.email, "wrong password", "203.0.113.7")).statusCode).toBe(401);
    const limited = await login(u.admin.email, "wrong password", "203.0.113.7");
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Even the right password waits from there, so guessing cannot go on.
    expect((await login(u.admin.email, PASSWORD, "203.0.113.7")).statusCode).toBe(429);
    // The user from another address signs in.
    expect((await login(u.admin.email, PASSWORD, "198.51.100.20")).statusCode).toBe(200);
  });

  it("limits an address across accounts, and delays an account across addresses but for the user's known one", async () => {
    const strict = await buildApp(
      { ...t.config, loginLimits: { perAddress: 6, perAccount: 4 } },
      { handle: t.app.dbHandle, logger: false },
    );
    try {
      const users = await Promise.all(Array.from({ length: 7 }, () => t.tenant()));
      // One address, many accounts.
      for (const u of users.slice(0, 6))
        expect((await login(u.admin.email, "nope", "192.0.2.1", strict)).statusCode).toBe(401);
      expect((await login(users[6]!.admin.email, PASSWORD, "192.0.2.1", strict)).statusCode).toBe(429);
      // One account, many addresses: past 4, each new address waits a growing delay (at most a minute).
      const target = users[6]!.admin.email;
      expect((await login(target, PASSWORD, "192.0.2.200", strict)).statusCode).toBe(200);
      for (let i = 0; i < 5; i++)
        expect((await login(target, "nope", `192.0.2.${10 + i}`, strict)).statusCode).toBe(401);
      const delayed = await login(target, PASSWORD, "192.0.2.99", strict);
      expect(delayed.statusCode).toBe(429);
      expect(Number(delayed.headers["retry-after"])).toBeLessThanOrEqual(60);
      // The address the user signed in from before is not held up.
      expect((await login(target, PASSWORD, "192.0.2.200", strict)).statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe("logs", () => {
  it("no secret minted or sent during the run appears in the info log", async () => {
    const secrets: string[] = [a.apiKey, a.adminCookie.split("=")[1]!, PASSWORD];
    const as = { cookie: a.adminCookie, "content-type": "application/json" };
    const key = await inject({
      method: "POST",
      url: `/api/projects/${a.projectId}/keys`,
      headers: as,
      payload: { name: "logged?" },
    });
    secrets.push(key.json().rawKey);
    const tx = await inject({
      method: "POST",
      url: "/api/transactional-api-keys",
      headers: as,
      payload: { name: "logged?" },
    });
    secrets.push(tx.json().rawKey);
    const wh = await inject({
      method: "POST",
      url: "/api/webhooks",
      headers: as,
      payload: { url: "https://localhost:9/hook", events: ["lead.created"] },
    });
    secrets.push(wh.json().secret);
    const memberPassword = "another long passphrase";
    await inject({
      method: "POST",
      url: "/api/workspace/users",
      headers: as,
      payload: { email: "logged@example.com", role: "member", password: memberPassword },
    });
    secrets.push(memberPassword);
    const login = await inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: "logged@example.com", password: memberPassword },
    });
    secrets.push(String(login.headers["set-cookie"]).split(";")[0]!.split("=")[1]!);
    await inject({ url: "/api/goals", headers: { authorization: `Bearer ${key.json().rawKey}` } });
    await inject({
      method: "POST",
      url: "/api/v1/transactional/send",
      headers: { authorization: `Bearer ${tx.json().rawKey}`, "content-type": "application/json" },
      payload: { to: "x@sandbox.svc.test", subject: "s", html: "<p>x</p>" },
    });
    const log = logLines.join("");
    expect(log).toContain("/api/auth/login"); // the log is there …
    expect(secrets.every((s) => s && s.length >= 16)).toBe(true);
    for (const s of secrets) expect(log.includes(s), `secret ${s.slice(0, 6)}… in the log`).toBe(false); // … without secrets
  });
});
