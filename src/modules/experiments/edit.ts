import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import { AppError, validation } from "../../platform/errors.js";
import { equalWeights } from "../../platform/stats/allocation.js";
import { resolveMetrics } from "./metrics.js";
import type { CreateExperiment, EXPERIMENT_RUNNERS, PatchExperiment } from "./schema.js";
import type { ExperimentTable } from "./tables.js";

/**
 * Who shows an experiment's variants. The snippet needs the pages to run on (the spec's required
 * targetUrl); a feature flag's experiment rule buckets users in the customer's code, where a page
 * URL means nothing, so such an experiment has none.
 */
export type Runner = (typeof EXPERIMENT_RUNNERS)[number];

/** The row's target_url (NOT NULL since the first migration) when the experiment has no page. */
export const NO_PAGE = "";

export const runnerOf = (row: Pick<ExperimentTable, "target_url">): Runner =>
  row.target_url === NO_PAGE ? "flag" : "snippet";

export const targetUrlOf = (row: Pick<ExperimentTable, "target_url">): string | null =>
  row.target_url === NO_PAGE ? null : row.target_url;

/** The target_url a new experiment is stored with; a snippet's without one, or a flag's with one, is 400. */
export function targetUrlOnCreate(input: Pick<CreateExperiment, "runner" | "targetUrl">): string {
  if ((input.runner ?? "snippet") === "flag") {
    if (input.targetUrl !== undefined)
      throw validation(
        'body.targetUrl: an experiment a feature flag runs (runner "flag") has no page URL; leave targetUrl out',
      );
    return NO_PAGE;
  }
  if (input.targetUrl === undefined)
    throw validation(
      "body must have required property 'targetUrl' (the pages the snippet runs the experiment on), or runner \"flag\" for an experiment a feature flag runs",
    );
  return input.targetUrl;
}

/**
 * An experiment's field edits: the row as it will be written, status unchanged. Variants freeze
 * once the experiment has run (its exposures and conversions are counted per variant name); the
 * runner is fixed at creation, as the mode is, so a flag's experiment takes no targetUrl.
 */
export async function editExperiment(
  trx: Trx,
  project: ProjectRef,
  row: ExperimentTable,
  patch: PatchExperiment,
  now: string,
): Promise<ExperimentTable> {
  if (patch.targetUrl !== undefined && runnerOf(row) === "flag")
    throw validation(
      `body.targetUrl: experiment ${row.id} is run by a feature flag and has no page URL (runner is fixed at creation)`,
    );
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
