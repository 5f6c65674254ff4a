/** Child-process servers and autocannon runs for the email benchmarks. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface Running {
  base: string;
  output: () => string;
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

export async function startNode(script: string, env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "lift-bench-email-"));
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
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
    !(await fetch(`${base}/healthz`).then(
      (r) => r.status < 500,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

/** autocannon POST run; `headers(i)` and `body(i)` build the i-th request. */
export async function load(
  url: string,
  connections: number,
  seconds: number,
  headers: (i: number) => Record<string, string>,
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
        setupRequest: (req) => {
          const n = i++;
          return { ...req, headers: { "content-type": "application/json", ...headers(n) }, body: body(n) };
        },
      },
    ],
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}
