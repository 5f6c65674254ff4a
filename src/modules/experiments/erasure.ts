import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import {
  type GoalStatsDelta,
  type StatsDelta,
  bumpGoalStats,
  bumpStats,
  goalStatsDelta,
  statsDelta,
} from "./store.js";
import "./tables.js";

/**
 * Erasure: the visitors' exposures go, and their variants' counters lose them (an exposure that
 * converted counted once in each; its revenue r was r in Σ and r² in Σ²), as do their
 * secondary and guardrail conversions. The counters are taken back as deltas, which on PostgreSQL
 * go to this process's rows (results sum over them). Returns how many exposures were removed.
 */
export async function eraseExposuresOf(trx: Trx, project: ProjectRef, visitorIds: string[]): Promise<number> {
  let removed = 0;
  const stats = new Map<string, StatsDelta>();
  const goalStats = new Map<string, GoalStatsDelta>();
  for (let i = 0; i < visitorIds.length; i += 400) {
    const chunk = visitorIds.slice(i, i + 400);
    const rows = await trx
      .deleteFrom("experiment_exposures")
      .where("project_id", "=", project.id)
      .where("visitor_id", "in", chunk)
      .returning(["experiment_id", "variant", "converted_at", "revenue"])
      .execute();
    removed += rows.length;
    for (const r of rows) {
      const revenue = Number(r.revenue);
      const d = statsDelta(stats, r.experiment_id, r.variant);
      d.e--;
      if (r.converted_at !== null) d.c--;
      d.revenue -= revenue;
      d.squares -= revenue * revenue;
    }
    for (const experimentId of new Set(rows.map((r) => r.experiment_id))) {
      const hits = await trx
        .deleteFrom("experiment_goal_conversions")
        .where("experiment_id", "=", experimentId)
        .where("visitor_id", "in", chunk)
        .returning(["goal_id", "variant"])
        .execute();
      for (const h of hits) goalStatsDelta(goalStats, experimentId, h.goal_id, h.variant).n--;
    }
  }
  await bumpStats(trx, stats);
  await bumpGoalStats(trx, goalStats);
  return removed;
}
