import { existsSync, readdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, REPO_DIR, serverStaleReason } from "../../tools/build-server.js";
import { call, type LiftProcess, type LiftStore, liftStore } from "../hardening/lift-process.js";

/**
 * The production build (issue 36): tsc's output run by plain `node` (no tsx, no loader), on a data
 * dir of its own. Each check reaches something the compiled layout could lose: the migrations
 * (found as .js), the channel rules (a JSON file copied beside the code), the snippet (bundled from
 * the compiled JavaScript), the dashboard (web/dist, reached by a path out of the build folder).
 */
const OUT = path.join(REPO_DIR, `.dist-test-${process.pid}`);
let store: LiftStore;
let server: LiftProcess;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : [path.relative(OUT, path.join(dir, e.name))],
  );
}

beforeAll(async () => {
  buildServer(OUT);
  store = await liftStore("build", ["--enable-source-maps", path.join(OUT, "main.js")]);
  // NODE_OPTIONS emptied: nothing the test runner set (a loader) reaches the compiled server.
  server = await store.start({ NODE_OPTIONS: "" });
}, 120_000);

afterAll(async () => {
  await store?.dispose();
  rmSync(OUT, { recursive: true, force: true });
});

describe("the compiled server", () => {
  it("is JavaScript with source maps to the .ts sources, without test code, with src/'s data files", () => {
    const all = files(OUT);
    expect(all).toContain("main.js");
    expect(all.filter((f) => f.endsWith(".ts"))).toEqual([]);
    expect(all.filter((f) => /\.test\.js$|\.testing\.js$|fixtures/.test(f))).toEqual([]);
    expect(all).toContain(path.join("modules", "event-store", "sessions", "channels.json"));
    expect(all.filter((f) => /^platform\/db\/migrations\/\d{4}_.*\.js$/.test(f)).length).toBe(
      readdirSync(path.join(REPO_DIR, "src/platform/db/migrations")).filter((f) => f.endsWith(".ts")).length,
    );
    const map = JSON.parse(readFileSync(path.join(OUT, "main.js.map"), "utf8")) as { sources: string[] };
    expect(map.sources).toEqual(["../src/main.ts"]);
  });

  it("is current right after the build and stale when the stamp is older than src/", () => {
    expect(serverStaleReason(OUT)).toBeNull();
    expect(serverStaleReason(path.join(REPO_DIR, ".dist-none"))).toMatch(/missing/);
    const stamp = path.join(OUT, "build.json");
    utimesSync(stamp, new Date(0), new Date(0));
    expect(serverStaleReason(OUT)).toMatch(/src\/ changed/);
    const now = new Date();
    utimesSync(stamp, now, now);
  });

  it("answers health and serves the OpenAPI document", async () => {
    const health = await call(server.base, "GET", "/healthz");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");
    const doc = await call(server.base, "GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toContain("/api/events");
  });

  it("ingests an event, classified by the copied channel rules", async () => {
    const out = server.output();
    const publicKey = /public key:\s+(\S+)/.exec(out)?.[1];
    const apiKey = /project API key:\s+(\S+)/.exec(out)?.[1];
    // The compiled bootstrap printed both keys once, in their formats.
    expect(publicKey).toMatch(/^svc_pk_[A-Za-z0-9]+$/);
    expect(apiKey).toMatch(/^svc_key_[A-Za-z0-9]+$/);
    const url = "https://shop.example.com/?utm_source=google&utm_medium=cpc";
    const sent = await call(server.base, "POST", "/api/events", {
      body: { projectKey: publicKey, visitorId: "v-build", type: "pageview", url },
      headers: { "user-agent": "Mozilla/5.0 Firefox/128.0" },
    });
    expect(sent.status).toBe(200);
    const recent = await call(server.base, "GET", "/api/events/recent", { key: apiKey });
    expect(recent.status).toBe(200);
    expect(recent.body).toEqual([
      expect.objectContaining({ visitorId: "v-build", url, channel: "paid_search", source: "google" }),
    ]);
  });

  it("bundles the browser snippet from the compiled JavaScript", async () => {
    const publicKey = /public key:\s+(\S+)/.exec(server.output())![1];
    const res = await fetch(`${server.base}/api/svc-js?key=${publicKey}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect((await res.text()).length).toBeGreaterThan(1000);
  });

  it("serves the dashboard from web/dist", async () => {
    expect(existsSync(path.join(REPO_DIR, "web/dist/index.html"))).toBe(true);
    const res = await fetch(`${server.base}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<script type="module"[^>]+src="\/assets\/index-[^"]+\.js"/);
    const asset = /src="(\/assets\/index-[^"]+\.js)"/.exec(html)![1]!;
    expect((await fetch(`${server.base}${asset}`)).status).toBe(200);
  });
});
