import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import type { CommittedEvent } from "../../platform/event-bus.js";
import { type ConversionGoalT, matchesConversionGoal } from "../goals/service.js";
import { extraGoalsOf } from "./metrics.js";
import {
  type GoalStatsDelta,
  type StatsDelta,
  bumpGoalStats,
  bumpStats,
  goalStatsDelta,
  statsDelta,
} from "./store.js";
import type { ExperimentGoalConversionTable } from "./tables.js";

/**
 * What a batch's events after exposure add to running experiments: the first primary conversion,
 * revenue, and first conversions on secondary and guardrail goals (docs/decisions/experiments.md).
 */
export const EXPOSURE_EVENT = "$exposure";
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const CHUNK = 500;

export async function recordConversions(
  trx: Trx,
  project: ProjectRef,
  events: CommittedEvent[],
  touched: Set<string>,
  goalsOf: () => Promise<ConversionGoalT[]>,
) {
  const candidates = events.filter((e) => e.type !== EXPOSURE_EVENT && e.visitorId);
  if (candidates.length === 0) return;
  // A conversion needs a goal and a running experiment: two cheap checks before looking up the
  // exposures of every visitor in the batch (measured ~1 µs per event when skipped needlessly).
  const goals = await goalsOf();
  if (goals.length === 0) return;
  const running = await trx
    .selectFrom("experiments")
    .select("id")
    .where("project_id", "=", project.id)
    .where("status", "=", "running")
    .limit(1)
    .executeTakeFirst();
  if (!running) return;
  const visitors = [...new Set(candidates.map((e) => e.visitorId))];
  const earning = new Set(candidates.filter((e) => revenueOf(e) !== 0).map((e) => e.visitorId));
  const open: OpenExposure[] = [];
  for (let i = 0; i < visitors.length; i += CHUNK) {
    const chunk = visitors.slice(i, i + CHUNK);
    const earners = chunk.filter((v) => earning.has(v));
    // A converted exposure still matters when this batch brings its visitor revenue or its
    // experiment counts secondary/guardrail goals; most converted visitors need no read.
    const rows = await trx
      .selectFrom("experiment_exposures as x")
      .innerJoin("experiments as e", "e.id", "x.experiment_id")
      .select([
        "x.experiment_id",
        "x.visitor_id",
        "x.variant",
        "x.exposed_at",
        "x.converted_at",
        "e.conversion_goal_ids as goals",
        "e.metrics",
      ])
      .where("x.project_id", "=", project.id)
      .where("x.visitor_id", "in", chunk)
      .where("e.status", "=", "running")
      .where((eb) =>
        eb.or([
          eb("x.converted_at", "is", null),
          eb("e.metrics", "is not", null),
          ...(earners.length > 0 ? [eb("x.visitor_id", "in", earners)] : []),
        ]),
      )
      .execute();
    open.push(...rows);
  }
  if (open.length === 0) return;
  const eventsOf = new Map<string, CommittedEvent[]>();
  for (const e of candidates) {
    const list = eventsOf.get(e.visitorId);
    if (list) list.push(e);
    else eventsOf.set(e.visitorId, [e]);
  }
  const deltas = new Map<string, StatsDelta>();
  const delta = (exp: string, variant: string) => statsDelta(deltas, exp, variant);
  const goalHits: ExperimentGoalConversionTable[] = [];
  const earned: { x: OpenExposure; revenue: number }[] = [];
  // In key order: the exposure updates below lock rows another process's flush may also update.
  open.sort((a, b) => cmp(a.experiment_id, b.experiment_id) || cmp(a.visitor_id, b.visitor_id));
  for (const x of open) {
    const after = eventsOf.get(x.visitor_id)!.filter((e) => e.timestamp >= Number(x.exposed_at));
    if (after.length === 0) continue;
    const wanted = x.goals ? new Set(JSON.parse(x.goals) as string[]) : null;
    const own = wanted ? goals.filter((g) => wanted.has(g.id)) : goals;
    const hit =
      x.converted_at === null ? after.find((e) => own.some((g) => matchesConversionGoal(g, e))) : undefined;
    if (hit && (await markConverted(trx, x, hit.timestamp))) {
      delta(x.experiment_id, x.variant).c++;
      touched.add(x.experiment_id);
    }
    const revenue = revenueAfterExposure(after, goals);
    if (revenue !== 0) earned.push({ x, revenue });
    for (const g of extraGoalsOf(x)) {
      const goal = goals.find((c) => c.id === g.goal);
      const first = goal && after.find((e) => matchesConversionGoal(goal, e));
      if (first)
        goalHits.push({
          experiment_id: x.experiment_id,
          visitor_id: x.visitor_id,
          goal_id: g.goal,
          variant: x.variant,
          converted_at: first.timestamp,
        });
    }
  }
  // Σ² needs each visitor's total before this batch; the update returns the total after it.
  for (const { x, revenue, total } of await addExposureRevenue(trx, earned)) {
    const d = delta(x.experiment_id, x.variant);
    d.revenue += revenue;
    d.squares += total * total - (total - revenue) * (total - revenue);
    touched.add(x.experiment_id);
  }
  await bumpStats(trx, deltas);
  if (await recordGoalHits(trx, goalHits)) for (const h of goalHits) touched.add(h.experiment_id);
}

interface OpenExposure {
  experiment_id: string;
  visitor_id: string;
  variant: string;
  exposed_at: number;
  converted_at: number | null;
  goals: string | null;
  metrics: string | null;
}

async function markConverted(trx: Trx, x: OpenExposure, at: number): Promise<boolean> {
  const res = await trx
    .updateTable("experiment_exposures")
    .set({ converted_at: at })
    .where("experiment_id", "=", x.experiment_id)
    .where("visitor_id", "=", x.visitor_id)
    .where("converted_at", "is", null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Revenue of the events that match any of the project's conversion goals (each event once). */
function revenueAfterExposure(after: CommittedEvent[], goals: ConversionGoalT[]): number {
  let sum = 0;
  for (const e of after) {
    const n = revenueOf(e);
    if (n !== 0 && goals.some((g) => matchesConversionGoal(g, e))) sum += n;
  }
  return sum;
}

/** An event's `data.revenue` as a finite number (0 when absent), as analytics reads it. */
function revenueOf(e: CommittedEvent): number {
  const v = e.data?.revenue;
  const n = typeof v === "string" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : 0;
}

/**
 * Adds each visitor's revenue to its exposure in one statement per chunk (UPDATE … FROM VALUES,
 * whose columns are column1… on both databases) and returns the totals after it.
 */
async function addExposureRevenue(trx: Trx, earned: { x: OpenExposure; revenue: number }[]) {
  const out: { x: OpenExposure; revenue: number; total: number }[] = [];
  for (let i = 0; i < earned.length; i += CHUNK) {
    const chunk = earned.slice(i, i + CHUNK);
    const values = sql.join(
      chunk.map(
        ({ x, revenue }) =>
          sql`(cast(${x.experiment_id} as text), cast(${x.visitor_id} as text), cast(${revenue} as double precision))`,
      ),
    );
    const { rows } = await sql<{ experiment_id: string; visitor_id: string; revenue: number }>`
      update experiment_exposures set revenue = experiment_exposures.revenue + v.column3
      from (values ${values}) as v
      where experiment_exposures.experiment_id = v.column1 and experiment_exposures.visitor_id = v.column2
      returning experiment_exposures.experiment_id, experiment_exposures.visitor_id, experiment_exposures.revenue`.execute(
      trx,
    );
    const totals = new Map(rows.map((r) => [`${r.experiment_id}\u0000${r.visitor_id}`, Number(r.revenue)]));
    for (const e of chunk) {
      const total = totals.get(`${e.x.experiment_id}\u0000${e.x.visitor_id}`);
      if (total !== undefined) out.push({ ...e, total });
    }
  }
  return out;
}

/** First conversions on secondary and guardrail goals; true when any was new. */
async function recordGoalHits(trx: Trx, hits: ExperimentGoalConversionTable[]): Promise<boolean> {
  const counts = new Map<string, GoalStatsDelta>();
  for (let i = 0; i < hits.length; i += CHUNK) {
    const inserted = await trx
      .insertInto("experiment_goal_conversions")
      .values(hits.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(["experiment_id", "visitor_id", "goal_id"]).doNothing())
      .returning(["experiment_id", "goal_id", "variant"])
      .execute();
    for (const r of inserted) goalStatsDelta(counts, r.experiment_id, r.goal_id, r.variant).n++;
  }
  await bumpGoalStats(trx, counts);
  return counts.size > 0;
}
