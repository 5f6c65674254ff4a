import type { DbOrTrx } from "../../platform/db/index.js";
import { banditProbabilityBest } from "../../platform/stats/allocation.js";
import { computeResults, type GoalCounts, type VariantCounts } from "../../platform/stats/results.js";
import { runnerOf, targetUrlOf } from "./edit.js";
import { extraGoalsOf, parseMetrics } from "./metrics.js";
import { type DecisionMethod, verdictOf } from "./outcome.js";
import type { ExperimentT, VariantT } from "./schema.js";
import type { ExperimentTable } from "./tables.js";

/** An experiment as the API shows it: the stored row, its counters, and the results from them. */

export function parseVariants(row: ExperimentTable): VariantT[] {
  return JSON.parse(row.variants) as VariantT[];
}
export function parseWeights(row: ExperimentTable): number[] {
  return JSON.parse(row.weights) as number[];
}

export interface ExperimentCounts {
  variants: VariantCounts[];
  goals: GoalCounts[];
  /** A bandit's newest allocations, oldest first (empty for other modes). */
  history: { at: string; weights: number[] }[];
}

/** How many allocations a bandit's results carry (the weights-history endpoint has more). */
export const RESULTS_HISTORY_POINTS = 50;

/** Counters of each experiment, in variant order (zeros for untouched variants). */
export async function loadCounts(
  db: DbOrTrx,
  rows: ExperimentTable[],
): Promise<Map<string, ExperimentCounts>> {
  const out = new Map<string, ExperimentCounts>();
  if (rows.length === 0) return out;
  const ids = rows.map((r) => r.id);
  const stats = await db
    .selectFrom("experiment_variant_stats")
    .selectAll()
    .where("experiment_id", "in", ids)
    .execute();
  // PostgreSQL keeps a row per writing process (platform/db/shard.ts): a variant's counters are their sums.
  const byKey = new Map<
    string,
    { exposures: number; conversions: number; revenueSum: number; squares: number }
  >();
  for (const s of stats) {
    const key = `${s.experiment_id}\u0000${s.variant}`;
    const sum = byKey.get(key) ?? { exposures: 0, conversions: 0, revenueSum: 0, squares: 0 };
    sum.exposures += Number(s.exposures);
    sum.conversions += Number(s.conversions);
    sum.revenueSum += Number(s.revenue_sum);
    sum.squares += Number(s.revenue_sum_squares);
    byKey.set(key, sum);
  }
  const withGoals = rows.filter((r) => r.metrics);
  const goalStats =
    withGoals.length === 0
      ? []
      : await db
          .selectFrom("experiment_goal_stats")
          .selectAll()
          .where(
            "experiment_id",
            "in",
            withGoals.map((r) => r.id),
          )
          .execute();
  const goalKey = (e: string, g: string, v: string) => `${e}\u0000${g}\u0000${v}`;
  const goalCounts = new Map<string, number>();
  for (const s of goalStats) {
    const key = goalKey(s.experiment_id, s.goal_id, s.variant);
    goalCounts.set(key, (goalCounts.get(key) ?? 0) + Number(s.conversions));
  }
  for (const r of rows) {
    const variants = parseVariants(r);
    out.set(r.id, {
      variants: variants.map((v) => {
        const s = byKey.get(`${r.id}\u0000${v.name}`);
        return {
          name: v.name,
          exposures: Math.max(0, s?.exposures ?? 0),
          conversions: Math.max(0, s?.conversions ?? 0),
          revenueSum: s?.revenueSum ?? 0,
          revenueSumSquares: s?.squares ?? 0,
        };
      }),
      goals: extraGoalsOf(r).map((g) => ({
        ...g,
        conversions: variants.map((v) => Math.max(0, goalCounts.get(goalKey(r.id, g.goal, v.name)) ?? 0)),
      })),
      history: r.mode === "bandit" ? await recentWeights(db, r.id) : [],
    });
  }
  return out;
}

async function recentWeights(db: DbOrTrx, experimentId: string) {
  const rows = await db
    .selectFrom("experiment_weights")
    .select(["at", "weights"])
    .where("experiment_id", "=", experimentId)
    .orderBy("at", "desc")
    .limit(RESULTS_HISTORY_POINTS)
    .execute();
  return rows
    .reverse()
    .map((r) => ({ at: new Date(Number(r.at)).toISOString(), weights: JSON.parse(r.weights) as number[] }));
}

export const BANDIT_NOTE =
  "A bandit moves traffic towards the arms doing best, so each arm's figures pool periods run under " +
  "different allocations: the rates, intervals and p-values assume a fixed split and are descriptive " +
  "here. A bandit is never completed by significance. Its weights follow each arm's posterior " +
  "probability of being best, and a stop names a winner only when that probability reaches 95%.";

/** What decided a completed experiment or, while it runs, what will. */
function decisionMethodOf(row: ExperimentTable): DecisionMethod {
  if (row.status !== "completed") return row.mode === "bandit" ? "bandit" : "sequential";
  if (row.decision_method) return row.decision_method as DecisionMethod;
  // Completed before the method was recorded: the single-look rule named any winner then.
  return row.winner === null ? "manual" : "fixed-horizon";
}

/**
 * The statistics of an experiment's counters. A bandit's exposures follow weights that move, so
 * there is no planned split to check them against (no sample-ratio check).
 */
export function resultsOf(row: ExperimentTable, counts: Pick<ExperimentCounts, "variants" | "goals">) {
  return computeResults(counts.variants, row.mode === "bandit" ? null : parseWeights(row), counts.goals);
}

export function toExperiment(row: ExperimentTable, counts: ExperimentCounts): ExperimentT {
  const weights = parseWeights(row);
  const { results, confidence } = resultsOf(row, counts);
  const metrics = parseMetrics(row);
  const primary = row.conversion_goal_ids ? (JSON.parse(row.conversion_goal_ids) as string[]) : null;
  const completed = row.status === "completed";
  const method = decisionMethodOf(row);
  const probabilityBest = row.mode === "bandit" ? banditProbabilityBest(weights) : null;
  const verdict = verdictOf({
    results,
    status: row.status,
    mode: row.mode,
    minSample: Number(row.min_sample_per_variant),
    winner: row.winner,
    method,
    probabilityBest,
  });
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    targetUrl: targetUrlOf(row),
    runner: runnerOf(row),
    trafficSplit: Number(row.traffic_split),
    variants: parseVariants(row),
    results: {
      ...results,
      verdict,
      decision: {
        method,
        decidedAt: completed ? row.completed_at : null,
        winner: completed ? row.winner : null,
      },
      bandit:
        row.mode === "bandit"
          ? {
              note: BANDIT_NOTE,
              probabilityBest: probabilityBest ?? [],
              weightsHistory: counts.history,
            }
          : null,
    },
    confidence,
    beliefId: row.belief_id,
    mode: row.mode,
    weights,
    conversionGoalIds: primary,
    metrics: { primary: primary?.length === 1 ? primary[0]! : null, ...metrics },
    minSamplePerVariant: Number(row.min_sample_per_variant),
    winner: row.winner,
    completionReason: row.completion_reason,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Event data for experiment.started / experiment.completed. */
export function serviceEventData(e: ExperimentT) {
  return {
    id: e.id,
    name: e.name,
    status: e.status,
    mode: e.mode,
    targetUrl: e.targetUrl,
    variants: e.variants.map((v) => v.name),
    winner: e.winner,
    confidence: e.confidence,
    completionReason: e.completionReason,
    results: e.results,
  };
}
