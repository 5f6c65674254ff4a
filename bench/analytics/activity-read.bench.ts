/**
 * What retention's read of `analytics_activity` costs in SQLite and better-sqlite3 alone (no
 * Kysely, no HTTP, no JS pass), over the funnel bench's seed (seed-events.ts): every activity row
 * of the project, 14 days per query as retention reads them, with more or fewer columns. Shows how
 * much of retention's time is the rows themselves.
 * Run: BENCH_EVENTS=10000000 npx tsx bench/analytics/activity-read.bench.ts   (1M by default)
 */
import { rmSync } from "node:fs";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { benchConfig } from "../lib/config.js";
import { seedStoredEvents } from "./seed-events.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const config = benchConfig("activity-read");
const app = await buildApp(config, { logger: false });
await app.ready();
try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const sqlite = app.dbHandle.sqlite!;
  seedStoredEvents(sqlite, p.project.id, EVENTS, Date.now());
  sqlite.exec("analyze");
  const minDay = sqlite.prepare("select min(day) from analytics_activity").pluck().get() as number;
  const maxDay = sqlite.prepare("select max(day) from analytics_activity").pluck().get() as number;
  const read = (columns: string, raw = false) => {
    const st = sqlite.prepare(
      `select ${columns} from analytics_activity where project_id = ? and day >= ? and day < ?`,
    );
    if (raw) st.raw();
    let rows = 0;
    const t0 = performance.now();
    for (let d = minDay; d <= maxDay; d += 14) rows += st.all(p.project.id, d, d + 14).length;
    return { ms: performance.now() - t0, rows };
  };
  for (const [label, columns, raw] of [
    ["day (the index alone)", "day", false],
    ["visitor_id", "visitor_id", false],
    ["visitor_id, day, type (objects)", "visitor_id, day, type", false],
    ["visitor_id, day, type (arrays)", "visitor_id, day, type", true],
  ] as const) {
    read(columns, raw); // warm-up
    const { ms, rows } = read(columns, raw);
    console.log(`${label.padEnd(36)} ${ms.toFixed(0).padStart(6)} ms   ${rows.toLocaleString("en")} rows`);
  }
} finally {
  await app.close();
  rmSync(config.dataDir, { recursive: true, force: true });
}
