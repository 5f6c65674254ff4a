import { readFileSync } from "node:fs";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { initialJsGzip } from "../../../web/tools/bundle-size.js";
import { WEB_DIST } from "./module.js";

// The build exists: vitest's globalSetup builds web/dist when it is missing or stale.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const html = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

describe("dashboard app shell", () => {
  it("serves the built app at / with no-cache and a CSP that allows no inline script or style", async () => {
    const res = await t.app.inject({ url: "/", headers: html });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.body).toBe(readFileSync(path.join(WEB_DIST, "index.html"), "utf8"));
    expect(res.body).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/);
    // No inline script in the shell: every <script> has a src.
    expect(res.body.match(/<script(?![^>]*\ssrc=)[^>]*>/g)).toBeNull();
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
  });

  it("answers deep links that accept HTML with the shell, the OAuth landing page included", async () => {
    const shell = (await t.app.inject({ url: "/", headers: html })).body;
    for (const url of [
      "/experiments",
      "/experiments/exp_123/results",
      "/settings",
      "/integrations?connected=crm",
      "/no/such/page",
    ]) {
      const res = await t.app.inject({ url, headers: html });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(shell);
    }
    const head = await t.app.inject({ method: "HEAD", url: "/settings", headers: html });
    expect(head.statusCode).toBe(200);
  });

  it("keeps JSON 404s for API paths and for requests that do not accept HTML", async () => {
    for (const url of [
      "/api/nope",
      "/api/goals/x/y",
      "/openapi.json/x",
      "/healthz/x",
      "/metrics/x",
      "/docs/x/y/z.json",
      "/assets/missing.js",
    ]) {
      const res = await t.app.inject({ url, headers: url.startsWith("/docs") ? {} : html });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers["content-type"], url).toMatch(/application\/json/);
      expect(res.json(), url).toMatchObject({ code: "NOT_FOUND", status: 404 });
    }
    const json = await t.app.inject({ url: "/experiments", headers: { accept: "application/json" } });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toEqual({
      error: "route GET /experiments not found",
      code: "NOT_FOUND",
      status: 404,
      requestId: expect.any(String),
    });
    // Only GET serves the shell.
    const post = await t.app.inject({ method: "POST", url: "/settings", headers: html });
    expect(post.statusCode).toBe(404);
  });

  it("serves hashed assets precompressed by Accept-Encoding, cached for a year", async () => {
    const shell = (await t.app.inject({ url: "/", headers: html })).body;
    const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(shell)![1]!;
    const raw = readFileSync(path.join(WEB_DIST, script));

    const br = await t.app.inject({ url: script, headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(br.statusCode).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(String(br.headers.vary).toLowerCase()).toContain("accept-encoding");
    expect(br.headers["content-type"]).toMatch(/javascript/);
    expect(brotliDecompressSync(br.rawPayload).equals(raw)).toBe(true);
    expect(br.rawPayload.length).toBeLessThan(raw.length / 2);

    const gz = await t.app.inject({ url: script, headers: { "accept-encoding": "gzip" } });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.rawPayload).equals(raw)).toBe(true);

    const plain = await t.app.inject({ url: script, headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.rawPayload.equals(raw)).toBe(true);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });
});

describe("dashboard build", () => {
  it("keeps the initial JavaScript within 200 KB gzipped (React's production build)", async () => {
    const gzip = initialJsGzip();
    expect(gzip).toBeGreaterThan(10_000);
    expect(gzip).toBeLessThanOrEqual(200 * 1024);
  });
});

describe("dashboard not built", () => {
  it("the API still starts and / explains how to build the dashboard", async () => {
    process.env.LIFT_WEB_DIST = path.join(WEB_DIST, "..", "no-such-dist");
    const bare = await startTestApp();
    try {
      const res = await bare.app.inject({ url: "/", headers: html });
      expect(res.statusCode).toBe(503);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.body).toContain("npm run build");
      expect((await bare.app.inject({ url: "/healthz" })).statusCode).toBe(200);
      expect((await bare.app.inject({ url: "/assets/index.js" })).statusCode).toBe(404);
    } finally {
      delete process.env.LIFT_WEB_DIST;
      await bare.close();
    }
  });
});
