import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "../helpers/net.js";

/**
 * The real server as a child process (`node --import tsx src/main.ts`, so a SIGKILL kills the
 * server itself; `node` with other arguments, e.g. the compiled `dist/main.js`, when given), on a
 * data dir and database of its own that survive restarts within a test file.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const PG_URL =
  process.env.DATABASE_URL && /^postgres/.test(process.env.DATABASE_URL)
    ? process.env.DATABASE_URL
    : undefined;

export interface LiftProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
  kill: () => Promise<void>;
}

export interface LiftStore {
  dataDir: string;
  databaseUrl: string | undefined;
  start: (env?: NodeJS.ProcessEnv) => Promise<LiftProcess>;
  /** Kills what is still running and drops the data dir and database. */
  dispose: () => Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

export const ADMIN = { email: "owner@example.com", password: "correct horse battery staple" };

export async function liftStore(
  name: string,
  nodeArgs: string[] = ["--import", "tsx", "src/main.ts"],
): Promise<LiftStore> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `lift-${name}-`));
  const dbName = `lift_${name}_${randomBytes(4).toString("hex")}`;
  const databaseUrl = PG_URL
    ? Object.assign(new URL(PG_URL), { pathname: `/${dbName}` }).toString()
    : undefined;
  if (PG_URL) await adminQuery(`CREATE DATABASE ${dbName}`);
  const running = new Set<LiftProcess>();

  async function start(extra: NodeJS.ProcessEnv = {}): Promise<LiftProcess> {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      RATE_LIMIT_EVENTS: "0",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ...extra,
    };
    if (databaseUrl) env.DATABASE_URL = databaseUrl;
    else delete env.DATABASE_URL;
    const child = spawn(process.execPath, nodeArgs, {
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
    const proc: LiftProcess = {
      child,
      base: `http://127.0.0.1:${port}`,
      output: () => out,
      kill: async () => {
        running.delete(proc);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        await closed;
      },
    };
    running.add(proc);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) {
        await closed;
        throw new Error(`server exited with ${child.exitCode}: ${out}`);
      }
      const ok = await fetch(`${proc.base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return proc;
      if (Date.now() > deadline) throw new Error(`server did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return {
    dataDir,
    databaseUrl,
    start,
    dispose: async () => {
      for (const p of [...running]) await p.kill();
      rmSync(dataDir, { recursive: true, force: true });
      if (PG_URL) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    },
  };
}

/** The project API key printed on the first start (the only time it is shown). */
export function printedApiKey(output: string): string {
  const m = /project API key:\s+(\S+)/.exec(output);
  if (!m) throw new Error(`no API key printed: ${output}`);
  return m[1]!;
}

/** JSON request to a running server. */
export async function call(
  base: string,
  method: string,
  url: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(opts.key ? { "x-api-key": opts.key } : {}),
      ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(opts.headers ?? {}),
    },
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

/** A seeded generator of kill moments: CRASH_SEED replays a run (its seed is printed by the tests). */
export function crashMoments(): { seed: number; random: () => number } {
  const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return { seed, random };
}
