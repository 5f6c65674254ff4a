import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { isPostgres } from "../../src/config.js";
import { freePort } from "../helpers/net.js";

/**
 * Two processes started at the same moment on an empty database (a deploy that starts every
 * replica at once): both come up, and exactly one workspace, admin and project are made; exactly
 * one of them prints the first-start credentials.
 */
const usePg = isPostgres({ databaseUrl: process.env.DATABASE_URL });
const ROUNDS = 4;
const children: ChildProcess[] = [];
const dirs: string[] = [];
const databases: string[] = [];

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  if (usePg)
    await admin(async (c) => {
      for (const db of databases) await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    });
});

interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
}

function start(env: NodeJS.ProcessEnv, port: number): Started {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: { ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => {
    out += d;
  });
  child.stderr!.on("data", (d) => {
    out += d;
  });
  return { child, port, output: () => out };
}

async function healthy(s: Started, ms = 60_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (s.child.exitCode !== null) return false;
    const res = await fetch(`http://127.0.0.1:${s.port}/healthz`).catch(() => undefined);
    if (res?.ok) return true;
    await new Promise((r) => setTimeout(r, 150));
  }
  return false;
}

async function countRows(env: NodeJS.ProcessEnv, dataDir: string): Promise<Record<string, number>> {
  const tables = ["workspaces", "users", "projects"];
  const out: Record<string, number> = {};
  if (usePg) {
    const c = new pg.Client({ connectionString: env.DATABASE_URL });
    await c.connect();
    for (const t of tables) out[t] = Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
    await c.end();
  } else {
    const db = new Database(path.join(dataDir, "lift.db"), { readonly: true });
    for (const t of tables) out[t] = (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    db.close();
  }
  return out;
}

describe("first start of two processes at once on an empty database", () => {
  it(`both come up and one workspace is made (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = mkdtempSync(path.join(tmpdir(), "lift-first-"));
      dirs.push(dataDir);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
      };
      if (usePg) {
        const db = `lift_first_${process.pid}_${round}`;
        databases.push(db);
        await admin((c) => c.query(`CREATE DATABASE ${db}`));
        const u = new URL(process.env.DATABASE_URL!);
        u.pathname = `/${db}`;
        env.DATABASE_URL = u.toString();
      } else {
        delete env.DATABASE_URL;
      }
      const [p1, p2] = [await freePort(), await freePort()];
      const a = start(env, p1);
      const b = start(env, p2);
      const up = await Promise.all([healthy(a), healthy(b)]);
      expect(up, `round ${round}\n--- a:\n${a.output()}\n--- b:\n${b.output()}`).toEqual([true, true]);
      expect(await countRows(env, dataDir)).toEqual({ workspaces: 1, users: 1, projects: 1 });
      const printed = [a, b].filter((s) => /admin password:/.test(s.output())).length;
      expect(printed).toBe(1);
      for (const s of [a, b]) s.child.kill("SIGKILL");
    }
  }, 300_000);
});

describe("first start of several processes on a new data dir", () => {
  it("they all use the one secret key that is written to disk", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "lift-key-"));
    dirs.push(dataDir);
    // Every process loads the module, then waits for the same instant, so they reach the key together.
    const at = Date.now() + 4000;
    const script = `const { loadConfig } = await import("./src/config.ts"); while (Date.now() < ${at}); process.stdout.write(loadConfig().secretKey);`;
    const keys = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
              env: { ...process.env, DATA_DIR: dataDir, SECRET_KEY: "" },
              stdio: ["ignore", "pipe", "inherit"],
            });
            let out = "";
            child.stdout!.on("data", (d) => {
              out += d;
            });
            child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
          }),
      ),
    );
    const onDisk = readFileSync(path.join(dataDir, "secret.key"), "utf8").trim();
    expect(onDisk).toMatch(/^[\w-]{43}$/);
    expect(new Set(keys)).toEqual(new Set([onDisk]));
    expect(readdirSync(dataDir)).toEqual(["secret.key"]);
  }, 60_000);
});
