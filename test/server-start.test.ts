import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { isPostgres } from "../src/config.js";
import { freePort } from "./helpers/net.js";
import { statOf } from "./stuck-file-reporter.js";

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
/** The command line of the `node … dist/main.js` process in the process group `group`. */
function serverCommandLine(group: number): string[] | undefined {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (statOf(readFileSync(`/proc/${pid}/stat`, "utf8")).group !== group) continue;
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      // node itself, not the shell that runs "tsx … && node … dist/main.js"
      if (path.basename(args[0]!) === "node" && args.includes("dist/main.js")) return args;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
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
    // The server runs with the young generation `npm start` gives it (docs/deploy.md): a flag lost
    // from the start script would go unseen (the server works without it, its collector costs more).
    const server = serverCommandLine(child!.pid!);
    expect(server, "no dist/main.js process in npm start's group").toBeDefined();
    expect(server).toContain("--max-semi-space-size=64");

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
