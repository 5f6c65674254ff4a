import { benchConfig } from "../lib/config.js";
/**
 * Cost the identity and analytics event processors add to the events commit: 100 batches of 500
 * committed events (visitor i % 20,000 as in bench/events/batch-ingest, one session each, 2% purchases matching a conversion
 * goal, 5% of batches with a userId of a known lead) run through the identity step (with its
 * changes handed to analytics, as the app subscribes them) + the analytics processor in one transaction per batch, vs the baseline of storing the same
 * events with a raw better-sqlite3 prepared insert (14 columns) per batch, same run, SQLite.
 * Run: npx tsx bench/analytics/processors.bench.ts   (BENCH_BATCHES=200)
 * BENCH_WITHOUT_TOUCHPOINT_TIME=1 drops the (project_id, ts) touchpoint index of migration 0396
 * first: the ingest cost of that index, measured as before/after in one build (issue 34).
 */
import { rmSync } from "node:fs";
import { buildApp } from "../../src/app.js";
import { createConversionGoal } from "../../src/modules/goals/service.js";
import { createAnalyticsProcessor } from "../../src/modules/analytics/ingest/processor.js";
import { identityStep } from "../../src/modules/identity/processor.js";
import { upsertLeadByEmail } from "../../src/modules/identity/service.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { type CommittedEvent, EventBus } from "../../src/platform/event-bus.js";
import { PIPELINE_STEPS } from "../../src/modules/events/pipeline.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const BATCH = 500;
const CHANNELS = ["direct", "organic_search", "paid_search", "email", "referral", "organic_social"];

const config = benchConfig("proc");
const dataDir = config.dataDir;
const app = await buildApp(config, { logger: false });
await app.ready();
if (process.env.BENCH_WITHOUT_TOUCHPOINT_TIME)
  app.dbHandle.sqlite!.exec("drop index analytics_touchpoints_time");
try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const project = { id: p.project.id, workspaceId: p.workspace.id };
  await createConversionGoal(app.db, project, { name: "Purchase", eventType: "purchase" });
  const leads: string[] = [];
  for (let i = 0; i < 20; i++)
    leads.push(
      (await upsertLeadByEmail(app.deps, project, { email: `l${i}@example.com`, source: "bench" })).lead.id,
    );

  const UAS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
  ];
  let seq = 0;
  const start = Date.now() - 3_600_000;
  const batches: CommittedEvent[][] = Array.from({ length: BATCHES }, (_, b) =>
    Array.from({ length: BATCH }, (_, i) => {
      const n = seq++;
      const v = n % 20_000;
      return {
        id: `ev_${n}`,
        workspaceId: project.workspaceId,
        projectId: project.id,
        visitorId: `v${v}`,
        leadId: b % 20 === 0 && i === 0 ? leads[b % leads.length]! : null,
        type: n % 50 === 0 ? "purchase" : "pageview",
        url: `https://shop.example.com/p/${n % 40}`,
        data: n % 50 === 0 ? { revenue: 30 } : {},
        referrer: null,
        timestamp: start + n * 10,
        sessionId: `s${v}`,
        channel: CHANNELS[v % CHANNELS.length]!,
        source: null,
        // the first event of each visitor starts its session (sessions continue after that)
        sessionStarted: n < 20_000,
        userAgent: UAS[v % UAS.length]!,
        isBot: false,
        origin: "web" as const,
      };
    }),
  );

  const sqlite = app.dbHandle.sqlite!;
  sqlite.exec(
    "create table bench_events (id text primary key, project_id text, visitor_id text, lead_id text, type text, url text, referrer text, data text, ts integer, received_at integer, session_id text, channel text, source text, is_bot integer)",
  );
  const insert = sqlite.prepare("insert into bench_events values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const store = sqlite.transaction((events: CommittedEvent[]) => {
    for (const e of events)
      insert.run(
        e.id,
        e.projectId,
        e.visitorId,
        e.leadId,
        e.type,
        e.url,
        e.referrer,
        JSON.stringify(e.data),
        e.timestamp,
        e.timestamp,
        e.sessionId,
        e.channel,
        e.source,
        0,
      );
  });
  // The two processors as the writer runs them (with the per-transaction configuration version read).
  const bus = new EventBus(sqlite);
  bus.setPipeline(PIPELINE_STEPS);
  bus.register("identity", identityStep(app.deps));
  bus.register("analytics", createAnalyticsProcessor(app.dbHandle), ["identity"]);
  let t0 = performance.now();
  for (const b of batches) store(b);
  const baseMs = performance.now() - t0;
  t0 = performance.now();
  for (const b of batches) {
    const committed = await app.db.transaction().execute((trx) => bus.process(trx, b));
    for (const fn of committed) fn();
  }
  const procMs = performance.now() - t0;
  const total = BATCHES * BATCH;
  const conv = await app.db
    .selectFrom("analytics_conversions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  console.log(
    `raw insert baseline : ${(total / (baseMs / 1000)).toFixed(0)} events/s (${baseMs.toFixed(0)} ms)`,
  );
  console.log(
    `identity+analytics  : ${(total / (procMs / 1000)).toFixed(0)} events/s (${procMs.toFixed(0)} ms, ${conv?.n} conversions)`,
  );
  console.log(
    `processor time per batch of ${BATCH}: ${(procMs / BATCHES).toFixed(2)} ms; ratio processors/insert time: ${(procMs / baseMs).toFixed(2)}`,
  );
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
