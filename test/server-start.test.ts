import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { isPostgres } from "../src/config.js";
import { freePort } from "./helpers/net.js";

let child: ChildProcess | undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), "lift-start-"));
let dbName: string | undefined;
/**
 * `npm start` runs sh → tsx (the build check) → node dist/main.js: killing npm alone would leave
 * the server running.
 */
function killGroup(): void {
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
afterAll(async () => {
  killGroup();
  rmSync(dataDir, { recursive: true, force: true });
  if (dbName) {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.end();
  }
});

describe("npm start from a clean checkout", () => {
  it("bootstraps, prints the credentials once and answers /healthz", async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
    };
    if (isPostgres({ databaseUrl: process.env.DATABASE_URL })) {
      dbName = `lift_start_${process.pid}`;
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`CREATE DATABASE ${dbName}`);
      await c.end();
      const u = new URL(process.env.DATABASE_URL!);
      u.pathname = `/${dbName}`;
      env.DATABASE_URL = u.toString();
    } else {
      delete env.DATABASE_URL;
    }
    // its own process group, so the whole tree can be stopped
    child = spawn("npm", ["start"], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
    });
    child.stderr!.on("data", (d) => {
      out += d;
    });
    // A clean checkout compiles the server first (tsc, 5–15 s here) when dist/ is missing or stale.
    const deadline = Date.now() + 90_000;
    let health: Response | undefined;
    while (Date.now() < deadline) {
      health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      if (health?.ok) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(health?.status, out).toBe(200);
    expect(await health!.json()).toEqual({ status: "ok" });
    expect(out).toMatch(/admin password:\s+\S+/);
    expect(out).toMatch(/project API key:\s+svc_key_/);
    // The printed credentials work.
    const email = /admin email:\s+(\S+)/.exec(out)![1];
    const password = /admin password:\s+(\S+)/.exec(out)![1];
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(200);

    // Stopping the tree stops the server itself (a leaked server kept running after every test run).
    killGroup();
    let stillUp = true;
    for (let i = 0; i < 50 && stillUp; i++) {
      await new Promise((r) => setTimeout(r, 100));
      stillUp = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => true,
        () => false,
      );
    }
    expect(stillUp).toBe(false);
  }, 120_000);
});
