/**
 * Start time and idle memory of the server as TypeScript through tsx (`node --import tsx
 * src/main.ts`, how it ran before the production build) against the compiled build (`node
 * dist/main.js`; `npm start` adds `--enable-source-maps`). Each run is a new process on an empty
 * SQLite data dir (so it includes the migrations and the first-start setup); the variants
 * alternate run by run so a change in the machine's load falls on all of them.
 *
 * start: from spawn to the first 200 from /healthz (polled every 10 ms), wall time; CPU to ready:
 * the process's user + system time at that moment (/proc/<pid>/stat), which a busy machine
 * inflates far less than the wall time.
 * RSS at idle: VmRSS from /proc/<pid>/status after BENCH_IDLE_MS (5000) of no requests.
 *
 *   npx tsx bench/platform/startup.bench.ts
 *   BENCH_RUNS=5, BENCH_IDLE_MS=5000
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { freePort } from "../../test/helpers/net.js";
import { ensureServerBuilt, REPO_DIR } from "../../tools/build-server.js";
import { median } from "../lib/servers.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5000);
const VARIANTS: { name: string; args: string[] }[] = [
  { name: "node --import tsx src/main.ts", args: ["--import", "tsx", "src/main.ts"] },
  { name: "node dist/main.js", args: ["dist/main.js"] },
  { name: "node --enable-source-maps dist/main.js", args: ["--enable-source-maps", "dist/main.js"] },
];
/** USER_HZ: the unit of /proc/<pid>/stat's times (100 on Linux everywhere in practice). */
const CLOCK_TICKS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) / 1024;
}

/** User + system CPU time of the process (all its threads) so far, in ms. */
function cpuMs(pid: number): number {
  // Fields after the command name (which is in parentheses): utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

interface Run {
  startMs: number;
  cpuMs: number;
  rss: number;
}

async function once(args: string[]): Promise<Run> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "lift-startup-"));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: "",
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    ADMIN_EMAIL: "owner@example.com",
    ADMIN_PASSWORD: "correct horse battery staple",
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  let child: ChildProcess | undefined;
  let out = "";
  try {
    const t0 = performance.now();
    child = spawn(process.execPath, args, { cwd: REPO_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (c) => {
      out += c;
    });
    child.stderr!.on("data", (c) => {
      out += c;
    });
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${out}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (performance.now() - t0 > 60_000) throw new Error(`server did not start: ${out}`);
      await sleep(10);
    }
    const startMs = performance.now() - t0;
    const cpu = cpuMs(child.pid!);
    await sleep(IDLE_MS);
    return { startMs, cpuMs: cpu, rss: rssMiB(child.pid!) };
  } finally {
    if (child && child.exitCode === null) {
      const closed = new Promise((r) => child!.once("close", r));
      child.kill("SIGTERM");
      await closed;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

ensureServerBuilt();
const results = new Map(VARIANTS.map((v) => [v.name, [] as Run[]]));
for (let run = 1; run <= RUNS; run++) {
  for (const v of VARIANTS) {
    const r = await once(v.args);
    results.get(v.name)!.push(r);
    console.log(
      `run ${run} ${v.name}: start ${r.startMs.toFixed(0)} ms, CPU ${r.cpuMs.toFixed(0)} ms, RSS ${r.rss.toFixed(1)} MiB`,
    );
  }
}

const rows = VARIANTS.map((v) => {
  const rs = results.get(v.name)!;
  const start = rs.map((r) => r.startMs);
  const cpu = rs.map((r) => r.cpuMs);
  const rss = rs.map((r) => r.rss);
  return [
    v.name,
    `${median(start).toFixed(0)} ms`,
    `${Math.min(...start).toFixed(0)}–${Math.max(...start).toFixed(0)} ms`,
    `${median(cpu).toFixed(0)} ms`,
    `${median(rss).toFixed(1)} MiB`,
    `${Math.min(...rss).toFixed(1)}–${Math.max(...rss).toFixed(1)} MiB`,
  ];
});
const head = ["command", "start p50", "start min–max", "CPU to ready p50", "RSS idle p50", "RSS min–max"];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
console.log(`\n${RUNS} runs each, alternating; empty SQLite data dir per run; idle ${IDLE_MS} ms\n`);
console.log(line(head));
console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
for (const r of rows) console.log(line(r));
