import { rmSync } from "node:fs";
import { benchConfig } from "../lib/config.js";
/**
 * Which store an events export should read: the row store's keyset pages (what the export does)
 * or the analytics engine (a query syncs its copy first). Both read the same N events of one
 * project, unfiltered and with an event filter (`page contains …`), in-process (no HTTP):
 * - row store: `eventPages` page by page (2,000 rows), as the export streams them;
 * - engine: the first query's catch-up of the copy (once per new events), then the same rows as
 *   one query (materialised whole) and as keyset pages of 20,000 rows ordered by (ts, id).
 * Run: npx tsx bench/analytics/export-source.bench.ts        (BENCH_EVENTS=300000 by default)
 */
import { buildApp } from "../../src/app.js";
import { eventPages } from "../../src/modules/event-store/service.js";
import { eventRowWhere, parseFilter } from "../../src/modules/analytics/filters/filter.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300_000);
const config = benchConfig("export-source");
const app = await buildApp(config, { logger: false });

const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(2);
const heapMb = () => `${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB heap`;

try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const project = { id: p.project.id, workspaceId: p.workspace.id };
  const sqlite = app.dbHandle.sqlite!;
  const insert = sqlite.prepare(
    "insert into events (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id, channel, source, is_bot, is_server) values (?, ?, ?, null, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)",
  );
  const start = Date.now() - 30 * 86_400_000;
  sqlite.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const v = i % 20_000;
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
        `ses_${v}`,
        i % 5 === 0 ? "organic_search" : "direct",
        i % 5 === 0 ? "google" : null,
      );
    }
  })();
  console.log(`seeded ${EVENTS.toLocaleString("en")} events`);
  const range = { from: 0, to: Date.now() + 1 };
  const filter = parseFilter([{ key: "page", op: "contains", value: "/p/1?" }]);

  for (const [name, where] of [
    ["all", undefined],
    ["page contains /p/1?", eventRowWhere(filter, false) ?? undefined],
  ] as const) {
    const t0 = performance.now();
    let rows = 0;
    for await (const page of eventPages(app.db, project, range, { where })) rows += page.length;
    console.log(`row store, ${name}: ${rows} rows in ${seconds(t0)} s (${heapMb()})`);
  }

  const engine = app.deps.engine;
  const s0 = performance.now();
  await engine.query("select count(*) from events where project_id = $1", [project.id]);
  console.log(`engine: first query, the copy catching up ${EVENTS} events: ${seconds(s0)} s`);
  const n0 = performance.now();
  await engine.query("select 1");
  console.log(`engine: a query with nothing new to copy: ${seconds(n0)} s`);

  for (const [name, cond] of [
    ["all", "true"],
    ["page contains /p/1?", "url ilike '%/p/1?%'"],
  ] as const) {
    const w0 = performance.now();
    const whole = await engine.query(
      `select * from events where project_id = $1 and ${cond} order by ts, id`,
      [project.id],
    );
    console.log(`engine, ${name}, one query: ${whole.length} rows in ${seconds(w0)} s (${heapMb()})`);
    const k0 = performance.now();
    let rows = 0;
    let after: { ts: number; id: string } | null = null;
    for (;;) {
      const page: { ts: number | bigint; id: string }[] = await engine.query(
        `select * from events where project_id = $1 and ${cond}${after ? " and (ts > $2 or (ts = $2 and id > $3))" : ""} order by ts, id limit 20000`,
        after ? [project.id, after.ts, after.id] : [project.id],
      );
      rows += page.length;
      if (page.length < 20_000) break;
      const last = page[page.length - 1]!;
      after = { ts: Number(last.ts), id: last.id };
    }
    console.log(`engine, ${name}, keyset pages: ${rows} rows in ${seconds(k0)} s`);
  }
} finally {
  await app.close();
  rmSync(config.dataDir, { recursive: true, force: true });
}
