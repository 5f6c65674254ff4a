import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { resolveMetrics } from "./metrics.js";
import { checkTargetUrlEdit } from "./runner.js";
import type { PatchExperiment } from "./schema.js";
import type { ExperimentTable } from "./tables.js";

const equalWeights = (n: number) => new Array(n).fill(1 / n) as number[];

/**
 * An experiment's field edits: the row as it will be written, status unchanged. Variants freeze
 * once the experiment has run (its exposures and conversions are counted per variant name).
 */
export async function editExperiment(
  trx: Trx,
  project: ProjectRef,
  row: ExperimentTable,
  patch: PatchExperiment,
  now: string,
): Promise<ExperimentTable> {
  checkTargetUrlEdit(row, patch);
  const next: ExperimentTable = {
    ...row,
    ...(await resolveMetrics(trx, project, patch, row)),
    updated_at: now,
  };
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.targetUrl !== undefined) next.target_url = patch.targetUrl;
  if (patch.trafficSplit !== undefined) next.traffic_split = patch.trafficSplit;
  if (patch.beliefId !== undefined) next.belief_id = patch.beliefId;
  if (patch.minSamplePerVariant !== undefined) next.min_sample_per_variant = patch.minSamplePerVariant;
  if (patch.variants !== undefined && JSON.stringify(patch.variants) !== row.variants) {
    if (row.has_run) throw new AppError("CONFLICT", "variants cannot change once the experiment has run");
    next.variants = JSON.stringify(patch.variants);
    next.weights = JSON.stringify(equalWeights(patch.variants.length));
  }
  return next;
}
