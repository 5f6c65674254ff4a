/** Shared helpers of the events benchmarks: child-process servers and autocannon runs. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface Running {
  child: ChildProcess;
  base: string;
  output: () => string;
  dataDir: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts `node --import tsx <script>` on a free port and waits until `probe` answers. */
export async function startNode(
  script: string,
  env: NodeJS.ProcessEnv = {},
  probe = "/healthz",
): Promise<Running> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "lift-bench-"));
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      RATE_LIMIT_EVENTS: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(base + probe).then(
      (r) => r.status < 500,
      () => false,
    ))
  ) {
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
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Starts Lift (bench/events/lift-server.ts) on a fresh SQLite data dir, with its public key. */
export async function startLift(opts: { processors: boolean }): Promise<Running & { publicKey: string }> {
  const s = await startNode("bench/events/lift-server.ts", {
    BENCH_NO_PROCESSORS: opts.processors ? "0" : "1",
  });
  const publicKey = /public key:\s+(\S+)/.exec(s.output())?.[1];
  if (!publicKey) throw new Error(`no public key printed: ${s.output()}`);
  return { ...s, publicKey };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

/** autocannon POST run; `body(i)` builds the i-th request body. */
export async function load(
  url: string,
  connections: number,
  seconds: number,
  body: (i: number) => string,
): Promise<LoadResult> {
  let i = 0;
  const r = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0",
        },
        setupRequest: (req) => ({ ...req, body: body(i++) }),
      },
    ],
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}
