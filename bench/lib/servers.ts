/** Child-process servers and autocannon runs shared by the HTTP benchmarks. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { freePort } from "../../test/helpers/net.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The V8 flags `npm start` gives Lift (package.json's "start", e.g. its young generation's size):
 * the benches start Lift as it is deployed.
 */
export const LIFT_NODE_ARGS: string[] =
  (
    JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts.start.match(/--max-[a-z-]+=\d+/g) ?? [];

export interface Running {
  child: ChildProcess;
  base: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx <script>` on a free port with a fresh DATA_DIR and every rate limit
 * off, and waits until `probe` answers below 500. `stop` ends it and removes its data. Lift's
 * servers pass `LIFT_NODE_ARGS` as `flags`.
 */
export async function startNode(
  script: string,
  env: NodeJS.ProcessEnv = {},
  probe = "/healthz",
  flags: string[] = [],
): Promise<Running> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "lift-bench-"));
  // BENCH_NODE_ARGS passes flags to the servers (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
  const nodeArgs = [...flags, ...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", script], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      RATE_LIMIT_EVENTS: "0",
      RATE_LIMIT_READS: "0",
      RATE_LIMIT_WRITES: "0",
      RATE_LIMIT_KEY_EVENTS: "0",
      RATE_LIMIT_ADDRESS_EVENTS: "0",
      RATE_LIMIT_ADDRESS_LEADS: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  const up = () =>
    fetch(base + probe).then(
      (r) => r.status < 500,
      () => false,
    );
  while (!(await up())) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    base,
    dataDir,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dataDir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once("exit", done);
        child.kill("SIGTERM");
      }),
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** responses with a 2xx status: requests the server acknowledged */
  ok: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  method?: "GET" | "POST";
  /** Builds the i-th request's headers and body (POST). */
  headers?: (i: number) => Record<string, string>;
  body?: (i: number) => string;
}

/** One autocannon run. */
export async function load(o: LoadOptions): Promise<LoadResult> {
  let i = 0;
  const method = o.method ?? (o.body ? "POST" : "GET");
  const r = await autocannon({
    url: o.url,
    connections: o.connections,
    duration: o.seconds,
    requests: [
      {
        method,
        setupRequest: (req) => {
          const n = i++;
          const headers = {
            ...(o.body ? { "content-type": "application/json" } : {}),
            ...(o.headers?.(n) ?? {}),
          };
          return { ...req, headers, ...(o.body ? { body: o.body(n) } : {}) };
        },
      },
    ],
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx + r.errors,
    ok: r["2xx"],
  };
}

export const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

/** Warnings and errors the servers logged (a failed group commit, a deadlock), by message. */
export function serverProblems(servers: Running[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of servers)
    for (const line of s.output().split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        const j = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
        if ((j.level ?? 0) < 40) continue;
        const k = `${j.msg ?? ""}${j.err?.message ? `: ${j.err.message}` : ""}`.slice(0, 160);
        out.set(k, (out.get(k) ?? 0) + 1);
      } catch {}
    }
  return out;
}

/** Stops the servers, then drops their PostgreSQL database (through `admin`) when they had one. */
export async function stopServers(
  servers: Running[],
  database: string | undefined,
  admin: { query(text: string): Promise<unknown> },
): Promise<void> {
  await Promise.all(servers.map((s) => s.stop()));
  if (database) await admin.query(`drop database if exists ${database} with (force)`);
}

/**
 * The process's user + system CPU seconds so far, its threads included (Linux: utime and stime of
 * /proc/<pid>/stat in USER_HZ, 100). CPU per request is steadier than req/s on a shared machine:
 * other processes' load does not enter it.
 */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
