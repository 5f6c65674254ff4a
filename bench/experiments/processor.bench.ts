/**
 * What the experiments event processor costs the events commit with revenue and secondary/guardrail
 * goals (issue 17): one tenant with conversion goals purchase / newsletter / ticket and one running
 * A/B experiment decided on purchase (BENCH_METRICS=1 also gives it newsletter as a secondary goal
 * and ticket as a guardrail, "worse when higher"; commits before issue 17 reject that field). 20,000
 * visitors are exposed first (batches of 500 `$exposure` events), then BENCH_BATCHES batches of 500
 * events from random exposed visitors — 70% pageview, 20% purchase with `data.revenue` 1..100, 5%
 * newsletter, 5% ticket — each run through every registered processor (identity, analytics,
 * experiments) in one transaction, as the events writer does (`processEvents`), and timed.
 * Baseline in the same run, batch for batch: the same batch shapes (same seeded draws) for a second
 * tenant with the same goals, the same visitors and no running experiment, where the experiments
 * processor stops after its "is anything running" check. SQLite.
 *
 * The experiment's minimum sample defaults to 10,000,000 per variant (BENCH_MIN_SAMPLE) so the
 * auto-complete gate stays shut on every commit: with the default 100, an A/A experiment checked
 * after every batch can complete mid-run (the pre-issue-17 single-look rule does so about two
 * times in three), after which the processor has nothing left to do and the batches get cheap.
 * Run: npx tsx bench/experiments/processor.bench.ts   (BENCH_BATCHES=200, BENCH_METRICS=1 optional)
 */
import { committed, exposure, processEvents } from "../../src/modules/experiments/experiments.testing.js";
import { startTestApp, type Tenant } from "../../test/helpers/app.js";
import { mulberry32 } from "../../src/platform/stats/stats.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 20_000);
const MIN_SAMPLE = Number(process.env.BENCH_MIN_SAMPLE ?? 10_000_000);
const METRICS = process.env.BENCH_METRICS === "1";
const SEED = Number(process.env.BENCH_SEED ?? 17);
const BATCH = 500;
const WARMUP = 5;

interface Shape {
  visitor: number;
  type: string;
  revenue?: number;
}

const q = (xs: number[], f: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(f * xs.length))]!;

const t = await startTestApp();
try {
  const exp = await t.tenant();
  const base = await t.tenant();
  const goalsFor = async (tn: Tenant) => {
    const ids: Record<string, string> = {};
    for (const name of ["purchase", "newsletter", "ticket"]) {
      const r = await tn.post("/api/conversion-goals", { name, eventType: name });
      if (r.status !== 201) throw new Error(`goal ${name}: ${r.status} ${r.text}`);
      ids[name] = r.body.id;
    }
    return ids as { purchase: string; newsletter: string; ticket: string };
  };
  const goals = await goalsFor(exp);
  await goalsFor(base);
  const created = await exp.post("/api/experiments", {
    name: "Checkout",
    targetUrl: "/pricing",
    variants: [{ name: "control" }, { name: "b" }],
    conversionGoalIds: [goals.purchase],
    minSamplePerVariant: MIN_SAMPLE,
    ...(METRICS
      ? {
          metrics: {
            secondary: [goals.newsletter],
            guardrails: [{ goal: goals.ticket, worseWhen: "higher" }],
          },
        }
      : {}),
  });
  if (created.status !== 201) throw new Error(`experiment: ${created.status} ${created.text}`);
  const id = created.body.id as string;
  const started = await exp.patch("/api/experiments", { id, status: "running" });
  if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);

  // Exposures: the baseline tenant gets the same events, naming an experiment of another project
  // (ignored), so identity and analytics hold the same visitors on both sides.
  const t0 = performance.now();
  for (let i = 0; i < VISITORS; i += BATCH) {
    for (const tn of [exp, base]) {
      const events = [];
      for (let v = i; v < Math.min(VISITORS, i + BATCH); v++)
        events.push(committed(tn, { visitorId: `v${v}`, ...exposure(id, v % 2 ? "b" : "control") }));
      await processEvents(t.app, events);
    }
  }
  const seeded = (await exp.get(`/api/experiments/${id}`)).body;
  const exposed = seeded.results.variants.reduce((s: number, v: { exposures: number }) => s + v.exposures, 0);
  if (exposed !== VISITORS) throw new Error(`exposed ${exposed}, expected ${VISITORS}`);
  console.log(
    `seeded ${VISITORS.toLocaleString("en")} exposed visitors in ${((performance.now() - t0) / 1000).toFixed(1)} s` +
      `   metrics ${METRICS ? "on (secondary newsletter, guardrail ticket)" : "off"}   min sample ${MIN_SAMPLE}`,
  );

  const rand = mulberry32(SEED);
  const shapes: Shape[][] = Array.from({ length: WARMUP + BATCHES }, () =>
    Array.from({ length: BATCH }, () => {
      const visitor = Math.floor(rand() * VISITORS);
      const r = rand();
      if (r < 0.7) return { visitor, type: "pageview" };
      if (r < 0.9) return { visitor, type: "purchase", revenue: 1 + Math.floor(rand() * 100) };
      return { visitor, type: r < 0.95 ? "newsletter" : "ticket" };
    }),
  );
  const eventsOf = (tn: Tenant, shape: Shape[]) =>
    shape.map((s) =>
      committed(tn, {
        visitorId: `v${s.visitor}`,
        type: s.type,
        url: s.type === "pageview" ? "https://shop.example/pricing" : "https://shop.example/checkout",
        data: s.revenue === undefined ? {} : { revenue: s.revenue },
      }),
    );
  const timed = async (tn: Tenant, shape: Shape[]) => {
    const events = eventsOf(tn, shape);
    const s = performance.now();
    await processEvents(t.app, events);
    return performance.now() - s;
  };
  const withExp: number[] = [];
  const without: number[] = [];
  for (let b = 0; b < shapes.length; b++) {
    // Alternate which side goes first so neither always follows the other's writes.
    const [first, second] = b % 2 ? [base, exp] : [exp, base];
    const a = await timed(first, shapes[b]!);
    const c = await timed(second, shapes[b]!);
    if (b < WARMUP) continue;
    withExp.push(first === exp ? a : c);
    without.push(first === exp ? c : a);
  }

  const after = (await exp.get(`/api/experiments/${id}`)).body;
  const counts = after.results.variants
    .map(
      (v: { name: string; exposures: number; conversions: number }) =>
        `${v.name} ${v.exposures}/${v.conversions}`,
    )
    .join(", ");
  console.log(`experiment ${after.status}; exposures/conversions: ${counts}`);
  // What the processor wrote beside the counters (tables and columns issue 17 added; n/a before it).
  const sqlite = t.app.dbHandle.sqlite!;
  const scalar = (query: string) => {
    try {
      return String(sqlite.prepare(query).pluck().get(id));
    } catch {
      return "n/a";
    }
  };
  console.log(
    `revenue on exposures ${scalar("select sum(revenue) from experiment_exposures where experiment_id = ?")}` +
      `   goal conversions ${scalar("select count(*) from experiment_goal_conversions where experiment_id = ?")}`,
  );
  if (after.status !== "running")
    console.log("WARNING: the experiment completed during the run; figures are not comparable");
  const line = (name: string, xs: number[]) =>
    `${name.padEnd(32)} p50 ${q(xs, 0.5).toFixed(1).padStart(6)} ms   p95 ${q(xs, 0.95).toFixed(1).padStart(6)} ms   per event p50 ${((q(xs, 0.5) * 1000) / BATCH).toFixed(0)} µs`;
  console.log(`${BATCHES} batches of ${BATCH} events (after ${WARMUP} warm-up batches):`);
  console.log(line("running experiment", withExp));
  console.log(line("baseline: no running experiment", without));
  console.log(
    `ratio experiment/baseline   p50 ${(q(withExp, 0.5) / q(without, 0.5)).toFixed(2)}   p95 ${(q(withExp, 0.95) / q(without, 0.95)).toFixed(2)}` +
      `   difference p50 ${(q(withExp, 0.5) - q(without, 0.5)).toFixed(1)} ms per batch`,
  );
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await t.close();
}
