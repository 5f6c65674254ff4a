import { withTransaction, type Db } from "../../platform/db/index.js";
import { equalWeights, thompsonWeights } from "../../platform/stats/allocation.js";
import type { VariantCounts } from "../../platform/stats/results.js";
import { fnv1a32 } from "./bucketing.js";
import { recordWeights } from "./transition.js";
import { loadCounts } from "./view.js";

/** How often bandit weights are recomputed (the job is deduplicated across nodes). */
export const BANDIT_INTERVAL_MS = 5 * 60_000;
/** Exposures every arm needs before Thompson sampling takes over from equal weights. */
export const BANDIT_BURN_IN = 100;

/** Thompson sampling seeded by the counts, so the same counts give the same weights. */
const seededThompson = (c: VariantCounts[]) =>
  thompsonWeights(c, { seed: fnv1a32(c.map((v) => `${v.name}:${v.exposures}:${v.conversions}`).join("|")) });

/**
 * Recomputes the weights of every running bandit experiment by Thompson sampling; arms stay
 * equal until each has `burnIn` exposures. Returns the ids whose weights changed.
 */
export async function recomputeBanditWeights(db: Db, burnIn = BANDIT_BURN_IN): Promise<string[]> {
  const rows = await db
    .selectFrom("experiments")
    .selectAll()
    .where("mode", "=", "bandit")
    .where("status", "=", "running")
    .execute();
  const counts = await loadCounts(db, rows);
  const changed: string[] = [];
  for (const row of rows) {
    const c = counts.get(row.id)!.variants;
    const weights = c.every((v) => v.exposures >= burnIn) ? seededThompson(c) : equalWeights(c.length);
    const json = JSON.stringify(weights);
    if (json === row.weights) continue;
    await withTransaction(db, async (trx) => {
      const updated = await trx
        .updateTable("experiments")
        .set({ weights: json, updated_at: new Date().toISOString() })
        .where("id", "=", row.id)
        .where("status", "=", "running")
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) await recordWeights(trx, row.id, json);
    });
    changed.push(row.project_id);
  }
  return changed;
}
