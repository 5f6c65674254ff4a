import { spawn } from "node:child_process";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiftStore, call, liftStore, printedApiKey } from "../hardening/lift-process.js";

/**
 * `lift analytics rebuild`: with the server stopped it copies every stored event into the engine
 * again, with progress; while the server holds the engine's file it refuses, saying why.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

let store: LiftStore;
beforeAll(async () => {
  store = await liftStore("rebuild");
});
afterAll(async () => store?.dispose());

function rebuild(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: store.dataDir };
  if (store.databaseUrl) env.DATABASE_URL = store.databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "analytics", "rebuild"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

async function copied(): Promise<{ events: number; distinct: number; sessions: number }> {
  const instance = await DuckDBInstance.create(path.join(store.dataDir, "analytics.duckdb"));
  const c = await instance.connect();
  const [row] = (
    await c.runAndReadAll(
      "select (select count(*) from events) as events, (select count(distinct id) from events) as distinct_ids, (select count(*) from sessions) as sessions",
    )
  ).getRowObjectsJS();
  c.closeSync();
  instance.closeSync();
  return {
    events: Number(row!.events),
    distinct: Number(row!.distinct_ids),
    sessions: Number(row!.sessions),
  };
}

const filter = encodeURIComponent(JSON.stringify([{ key: "page", op: "contains", value: "/p1" }]));

describe("lift analytics rebuild", () => {
  it("refuses while the server holds the engine, then rebuilds every event once with progress", async () => {
    const server = await store.start();
    const apiKey = printedApiKey(server.output());
    const publicKey = /public key:\s+(\S+)/.exec(server.output())![1]!;
    const events = 3 * 40;
    // Per visitor a page view from the browser (a session) and a batch of 39 from a server.
    for (let v = 0; v < 3; v++) {
      const headers = {
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
      };
      const view = await call(server.base, "POST", "/api/events", {
        headers,
        body: {
          projectKey: publicKey,
          visitorId: `v${v}`,
          type: "pageview",
          url: "https://shop.example.com/p0",
        },
      });
      expect(view.status).toBe(200);
      const batch = await call(server.base, "POST", "/api/events", {
        headers,
        body: {
          projectKey: publicKey,
          visitorId: `v${v}`,
          events: Array.from({ length: 39 }, (_, j) => ({
            type: "click",
            url: `https://shop.example.com/p${j + 1}`,
          })),
        },
      });
      expect(batch.status).toBe(200);
    }
    // A filtered report opens the engine's file (and copies the events).
    const report = await call(server.base, "GET", `/api/analytics/summary?period=7d&filter=${filter}`, {
      key: apiKey,
    });
    expect(report.status).toBe(200);
    expect(report.body.visitors).toBe(3);

    const refused = await rebuild();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("stop the server first");

    await server.kill();
    const done = await rebuild();
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`rebuilt the analytics engine's copy: ${events} events`);
    // Not a terminal: progress as plain lines, the last one the total.
    expect(done.stderr).toContain(`events ${events}/${events} rows`);
    expect(await copied()).toEqual({ events, distinct: events, sessions: 3 });
  }, 180_000);
});
