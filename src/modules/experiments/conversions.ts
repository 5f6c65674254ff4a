import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import type { CommittedEvent } from "../../platform/event-bus.js";
import { type ConversionGoalT, matchesConversionGoal } from "../goals/service.js";
import { extraGoalsOf } from "./metrics.js";
import type { ExperimentGoalConversionTable } from "./tables.js";

/**
 * What a batch's events after exposure add to running experiments: the first primary conversion,
 * revenue, and first conversions on secondary and guardrail goals (docs/decisions/experiments.md).
 */
export const EXPOSURE_EVENT = "$exposure";
const CHUNK = 500;

export interface StatsDelta {
  exp: string;
  variant: string;
  e: number;
  c: number;
  revenue: number;
  squares: number;
}

export async function bumpStats(trx: Trx, deltas: Map<string, StatsDelta>) {
  for (const d of deltas.values()) {
    await trx
      .insertInto("experiment_variant_stats")
      .values({
        experiment_id: d.exp,
        variant: d.variant,
        exposures: d.e,
        conversions: d.c,
        revenue_sum: d.revenue,
        revenue_sum_squares: d.squares,
      })
      .onConflict((oc) =>
        oc.columns(["experiment_id", "variant"]).doUpdateSet({
          exposures: sql`experiment_variant_stats.exposures + ${d.e}`,
          conversions: sql`experiment_variant_stats.conversions + ${d.c}`,
          revenue_sum: sql`experiment_variant_stats.revenue_sum + ${d.revenue}`,
          revenue_sum_squares: sql`experiment_variant_stats.revenue_sum_squares + ${d.squares}`,
        }),
      )
      .execute();
  }
}

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
  const open: OpenExposure[] = [];
  for (let i = 0; i < visitors.length; i += CHUNK) {
    // Converted exposures too: their later revenue and secondary/guardrail goals still count.
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
      .where("x.visitor_id", "in", visitors.slice(i, i + CHUNK))
      .where("e.status", "=", "running")
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
  const delta = (exp: string, variant: string) => {
    const key = `${exp}\u0000${variant}`;
    const d = deltas.get(key) ?? { exp, variant, e: 0, c: 0, revenue: 0, squares: 0 };
    deltas.set(key, d);
    return d;
  };
  const goalHits: ExperimentGoalConversionTable[] = [];
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
    if (revenue !== 0) {
      // Σ² needs the visitor's total before this batch; the update returns the total after it.
      const total = await addExposureRevenue(trx, x, revenue);
      const d = delta(x.experiment_id, x.variant);
      d.revenue += revenue;
      d.squares += total * total - (total - revenue) * (total - revenue);
      touched.add(x.experiment_id);
    }
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
    const v = e.data?.revenue;
    const n = typeof v === "string" ? Number(v) : v;
    if (
      typeof n === "number" &&
      Number.isFinite(n) &&
      n !== 0 &&
      goals.some((g) => matchesConversionGoal(g, e))
    )
      sum += n;
  }
  return sum;
}

async function addExposureRevenue(trx: Trx, x: OpenExposure, revenue: number): Promise<number> {
  const row = await trx
    .updateTable("experiment_exposures")
    .set({ revenue: sql`revenue + ${revenue}` })
    .where("experiment_id", "=", x.experiment_id)
    .where("visitor_id", "=", x.visitor_id)
    .returning("revenue")
    .executeTakeFirstOrThrow();
  return Number(row.revenue);
}

/** First conversions on secondary and guardrail goals; true when any was new. */
async function recordGoalHits(trx: Trx, hits: ExperimentGoalConversionTable[]): Promise<boolean> {
  const counts = new Map<string, { experiment_id: string; goal_id: string; variant: string; n: number }>();
  for (let i = 0; i < hits.length; i += CHUNK) {
    const inserted = await trx
      .insertInto("experiment_goal_conversions")
      .values(hits.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(["experiment_id", "visitor_id", "goal_id"]).doNothing())
      .returning(["experiment_id", "goal_id", "variant"])
      .execute();
    for (const r of inserted) {
      const key = `${r.experiment_id}\u0000${r.goal_id}\u0000${r.variant}`;
      const c = counts.get(key) ?? { ...r, n: 0 };
      c.n++;
      counts.set(key, c);
    }
  }
  for (const c of counts.values())
    await trx
      .insertInto("experiment_goal_stats")
      .values({ experiment_id: c.experiment_id, goal_id: c.goal_id, variant: c.variant, conversions: c.n })
      .onConflict((oc) =>
        oc
          .columns(["experiment_id", "goal_id", "variant"])
          .doUpdateSet({ conversions: sql`experiment_goal_stats.conversions + ${c.n}` }),
      )
      .execute();
  return counts.size > 0;
}
