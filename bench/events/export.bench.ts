import { benchConfig } from "../lib/config.js";
/**
 * Export throughput and memory: GET /api/export/events over real HTTP (curl in another process
 * reads it to /dev/null) for a project holding N stored events, NDJSON and CSV, on SQLite. The
 * server's RSS is sampled every 100 ms during the download by another process (/proc/<pid>/status),
 * so a busy event loop cannot skip samples.
 * Baseline in the same run: better-sqlite3 iterating the same rows and JSON-encoding each (the
 * cheapest full read of the table; no HTTP, no paging).
 * Run: npx tsx bench/events/export.bench.ts        (BENCH_EVENTS=1000000 by default)
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const config = benchConfig("export");
const app = await buildApp(config, { logger: false });
await app.listen({ port: 0, host: "127.0.0.1" });
const port = (app.server.address() as AddressInfo).port;

function download(url: string, key: string): Promise<{ bytes: number }> {
  return new Promise((resolve, reject) => {
    const curl = spawn("curl", [
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{size_download} %{http_code}",
      "-H",
      `x-api-key: ${key}`,
      url,
    ]);
    let out = "";
    curl.stdout.on("data", (d) => (out += d));
    curl.on("error", reject);
    curl.on("close", () => {
      const [bytes, status] = out.trim().split(" ");
      if (status !== "200") reject(new Error(`${url}: HTTP ${status}`));
      else resolve({ bytes: Number(bytes) });
    });
  });
}

const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;

/** RSS samples (bytes) of this process every 100 ms, taken by a shell loop until stopped. */
function sampleRss(): { stop: () => number[] } {
  const sampler = spawn("sh", ["-c", `while :; do grep VmRSS /proc/${process.pid}/status; sleep 0.1; done`]);
  let out = "";
  sampler.stdout.on("data", (d) => (out += d));
  return {
    stop: () => {
      sampler.kill();
      return [...out.matchAll(/VmRSS:\s+(\d+) kB/g)].map((m) => Number(m[1]) * 1024);
    },
  };
}

try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const sqlite = app.dbHandle.sqlite!;
  const t0 = performance.now();
  const insert = sqlite.prepare(
    "insert into events (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id, channel, source, is_bot, is_server) values (?, ?, ?, null, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)",
  );
  const start = Date.now() - 30 * 86_400_000;
  sqlite.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const v = i % 100_000;
      insert.run(
        `ev_${i.toString(36).padStart(8, "0")}`,
        p.project.id,
        `v${v}`,
        i % 20 === 0 ? "purchase" : "pageview",
        `https://shop.example.com/p/${i % 300}?ref=${i % 7}`,
        i % 5 === 0 ? "https://www.google.com/" : null,
        i % 20 === 0 ? `{"revenue":${i % 90},"currency":"EUR"}` : "{}",
        start + i * 2,
        start + i * 2 + 5,
        `ses_${v}_${Math.floor(i / 500_000)}`,
        i % 5 === 0 ? "organic_search" : "direct",
        i % 5 === 0 ? "google" : null,
      );
    }
  })();
  console.log(
    `seeded ${EVENTS.toLocaleString("en")} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const b0 = performance.now();
  let bytes = 0;
  for (const row of sqlite.prepare("select * from events where project_id = ?").iterate(p.project.id))
    bytes += JSON.stringify(row).length + 1;
  const baseSeconds = (performance.now() - b0) / 1000;
  console.log(
    `baseline: iterate + JSON.stringify   ${Math.round(EVENTS / baseSeconds)
      .toLocaleString("en")
      .padStart(9)} events/s  (${mb(bytes)})`,
  );

  for (const format of ["ndjson", "csv"] as const) {
    const rssBefore = process.memoryUsage().rss;
    const sampler = sampleRss();
    const s0 = performance.now();
    const { bytes: got } = await download(
      `http://127.0.0.1:${port}/api/export/events?format=${format}`,
      p.key.rawKey,
    );
    const seconds = (performance.now() - s0) / 1000;
    const samples = sampler.stop();
    const rate = EVENTS / seconds;
    // RSS should not grow with the rows sent: compare the highest sample of each half.
    const half = Math.ceil(samples.length / 2);
    const firstHalf = Math.max(...samples.slice(0, half));
    const secondHalf = Math.max(...samples.slice(half));
    console.log(
      `GET /api/export/events (${format.padEnd(6)})   ${Math.round(rate).toLocaleString("en").padStart(9)} events/s  ${mb(got)} in ${seconds.toFixed(1)} s;` +
        ` RSS before ${mb(rssBefore)}, max in the first half ${mb(firstHalf)}, in the second half ${mb(secondHalf)} (${samples.length} samples);` +
        ` ratio to baseline ${(rate / (EVENTS / baseSeconds)).toFixed(2)}`,
    );
  }
} finally {
  await app.close();
  rmSync(config.dataDir, { recursive: true, force: true });
}
