import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { findExperimentRow } from "./service.js";
import { parseVariants } from "./view.js";
import "./tables.js";

/** How many allocations a history answer holds (the newest; the job runs every 5 minutes). */
export const WEIGHTS_HISTORY_LIMIT = 2000;

/** A bandit's allocations over time, oldest first: what the results page charts. */
export async function weightsHistory(db: DbOrTrx, project: ProjectRef, id: string) {
  const row = await findExperimentRow(db, project, id);
  const rows = await db
    .selectFrom("experiment_weights")
    .select(["at", "weights"])
    .where("experiment_id", "=", row.id)
    .orderBy("at", "desc")
    .limit(WEIGHTS_HISTORY_LIMIT)
    .execute();
  return {
    experimentId: row.id,
    variants: parseVariants(row).map((v) => v.name),
    points: rows.reverse().map((r) => ({
      at: new Date(Number(r.at)).toISOString(),
      weights: JSON.parse(r.weights) as number[],
    })),
  };
}
