import type { DbOrTrx } from "../../platform/db/index.js";
import "./tables.js";

/** Records an allocation; a second one in the same millisecond replaces the first. */
export async function recordWeights(db: DbOrTrx, experimentId: string, weights: string, at = Date.now()) {
  await db
    .insertInto("experiment_weights")
    .values({ experiment_id: experimentId, at, weights })
    .onConflict((oc) => oc.columns(["experiment_id", "at"]).doUpdateSet({ weights }))
    .execute();
}
