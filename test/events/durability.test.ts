import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/net.js";

// The real server as a child process: events acknowledged with 200 must survive a SIGKILL.
const ROOT = path.resolve(import.meta.dirname, "../..");
const PG_URL =
  process.env.DATABASE_URL && /^postgres/.test(process.env.DATABASE_URL)
    ? process.env.DATABASE_URL
    : undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), "lift-durability-"));
const dbName = `lift_durability_${randomBytes(4).toString("hex")}`;
const dbUrl = PG_URL ? Object.assign(new URL(PG_URL), { pathname: `/${dbName}` }).toString() : undefined;

async function adminQuery(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
}

async function startServer(): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    RATE_LIMIT_EVENTS: "0",
    ADMIN_EMAIL: "owner@example.com",
    ADMIN_PASSWORD: "correct horse battery staple",
  };
  if (dbUrl) env.DATABASE_URL = dbUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c) => {
    out += c;
  });
  child.stderr!.on("data", (c) => {
    out += c;
  });
  const closed = new Promise((r) => child.once("close", r));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 40_000;
  for (;;) {
    if (child.exitCode !== null) {
      await closed; // the output streams may still hold the reason
      throw new Error(`server exited with ${child.exitCode}: ${out}`);
    }
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, base, output: () => out };
    if (Date.now() > deadline) throw new Error(`server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function kill(s: Server): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise((r) => s.child.once("exit", r));
  s.child.kill("SIGKILL");
  await exited;
}

async function storedEvents(): Promise<{ visitor_id: string; session_id: string }[]> {
  if (dbUrl) {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    try {
      return (await c.query("select visitor_id, session_id from events order by ts, id")).rows;
    } finally {
      await c.end();
    }
  }
  const db = new SQLite(path.join(dataDir, "lift.db"), { readonly: true });
  try {
    return db.prepare("select visitor_id, session_id from events order by ts, id").all() as never;
  } finally {
    db.close();
  }
}

let server: Server | undefined;
beforeAll(async () => {
  if (PG_URL) await adminQuery(`CREATE DATABASE ${dbName}`);
});
afterAll(async () => {
  if (server) await kill(server);
  if (PG_URL) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("durability", () => {
  it("finds every acknowledged event after SIGKILL and restart, and keeps sessions", async () => {
    server = await startServer();
    const publicKey = /public key:\s+(\S+)/.exec(server.output())?.[1];
    expect(publicKey).toMatch(/^svc_pk_/);
    const apiKey = /project API key:\s+(\S+)/.exec(server.output())?.[1];
    expect(apiKey).toMatch(/^svc_key_/);
    const post = (body: unknown) =>
      fetch(`${server!.base}/api/events`, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Mozilla/5.0 Firefox/128.0" },
        body: JSON.stringify({ projectKey: publicKey, ...(body as object) }),
      });
    const url = "https://shop.example.com/";
    // 150 concurrent single events + 10 concurrent batches of 25 = 400 acknowledged events.
    const singles = Array.from({ length: 150 }, (_, i) =>
      post({ type: "pageview", visitorId: `s${i}`, url }),
    );
    const batches = Array.from({ length: 10 }, (_, b) =>
      post({ visitorId: `b${b}`, events: Array.from({ length: 25 }, () => ({ type: "click", url })) }),
    );
    const responses = await Promise.all([...singles, ...batches]);
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const acked = (await Promise.all(responses.map((r) => r.json() as Promise<{ received: number }>))).reduce(
      (n, b) => n + b.received,
      0,
    );
    expect(acked).toBe(400);
    await kill(server);

    server = await startServer();
    const rows = await storedEvents();
    expect(rows).toHaveLength(400);
    expect(new Set(rows.map((r) => r.visitor_id)).size).toBe(160);

    // Journeys after the restart: on SQLite the newest events' per-visitor entries lived only in
    // the killed process (the index's tail) and are rebuilt from the stored rows.
    for (const visitorId of ["b3", "s42"]) {
      const res = await fetch(`${server.base}/api/identity?visitorId=${visitorId}`, {
        headers: { "x-api-key": apiKey! },
      });
      expect(res.status).toBe(200);
      const journey = (await res.json()) as { events: unknown[] };
      expect(journey.events).toHaveLength(visitorId === "b3" ? 25 : 1);
    }

    // A visitor coming back within 30 minutes continues its session after the restart.
    const before = rows.find((r) => r.visitor_id === "s7")!.session_id;
    const again = await post({ type: "pageview", visitorId: "s7", url });
    expect(again.status).toBe(200);
    const after = (await storedEvents()).filter((r) => r.visitor_id === "s7");
    expect(after.map((r) => r.session_id)).toEqual([before, before]);
  }, 90_000);
});
