import { sql } from "kysely";
import { type Trx, isPostgresDb } from "../../platform/db/index.js";
import { rollupKey, writerShard } from "../../platform/db/shard.js";
import "./tables.js";

/**
 * The variants' counters (exposures, conversions, revenue; secondary and guardrail goals), kept per
 * writer on PostgreSQL (platform/db/shard.ts): the conflict key there includes the shard.
 */

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export interface StatsDelta {
  exp: string;
  variant: string;
  e: number;
  c: number;
  revenue: number;
  squares: number;
}

/** The delta of an experiment's variant in `deltas`, made on first use. */
export function statsDelta(deltas: Map<string, StatsDelta>, exp: string, variant: string): StatsDelta {
  const key = `${exp}\u0000${variant}`;
  const d = deltas.get(key) ?? { exp, variant, e: 0, c: 0, revenue: 0, squares: 0 };
  deltas.set(key, d);
  return d;
}

/**
 * Adds to the variants' counters: on PostgreSQL to this process's rows (platform/db/shard.ts),
 * which results sum, so two processes' flushes never wait on each other here.
 */
export async function bumpStats(trx: Trx, deltas: Map<string, StatsDelta>) {
  const shard = writerShard(trx);
  const key = rollupKey(["experiment_id", "variant"], isPostgresDb(trx));
  // In key order, so concurrent transactions of one process lock the counters in one order.
  for (const [, d] of [...deltas.entries()].sort(([a], [b]) => cmp(a, b))) {
    await trx
      .insertInto("experiment_variant_stats")
      .values({
        experiment_id: d.exp,
        variant: d.variant,
        exposures: d.e,
        conversions: d.c,
        revenue_sum: d.revenue,
        revenue_sum_squares: d.squares,
        shard,
      })
      .onConflict((oc) =>
        oc.columns(key).doUpdateSet({
          exposures: sql`experiment_variant_stats.exposures + ${d.e}`,
          conversions: sql`experiment_variant_stats.conversions + ${d.c}`,
          revenue_sum: sql`experiment_variant_stats.revenue_sum + ${d.revenue}`,
          revenue_sum_squares: sql`experiment_variant_stats.revenue_sum_squares + ${d.squares}`,
        }),
      )
      .execute();
  }
}

export interface GoalStatsDelta {
  experiment_id: string;
  goal_id: string;
  variant: string;
  n: number;
}

/** Adds to the counters of secondary and guardrail goals, sharded as `bumpStats`. */
export async function bumpGoalStats(trx: Trx, deltas: Map<string, GoalStatsDelta>) {
  const shard = writerShard(trx);
  const key = rollupKey(["experiment_id", "goal_id", "variant"], isPostgresDb(trx));
  for (const [, c] of [...deltas.entries()].sort(([a], [b]) => cmp(a, b)))
    await trx
      .insertInto("experiment_goal_stats")
      .values({
        experiment_id: c.experiment_id,
        goal_id: c.goal_id,
        variant: c.variant,
        conversions: c.n,
        shard,
      })
      .onConflict((oc) =>
        oc.columns(key).doUpdateSet({ conversions: sql`experiment_goal_stats.conversions + ${c.n}` }),
      )
      .execute();
}

/** The delta of an experiment's goal and variant in `deltas`, made on first use. */
export function goalStatsDelta(
  deltas: Map<string, GoalStatsDelta>,
  experiment_id: string,
  goal_id: string,
  variant: string,
): GoalStatsDelta {
  const key = `${experiment_id}\u0000${goal_id}\u0000${variant}`;
  const d = deltas.get(key) ?? { experiment_id, goal_id, variant, n: 0 };
  deltas.set(key, d);
  return d;
}
