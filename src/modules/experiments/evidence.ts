import type { DbOrTrx } from "../../platform/db/index.js";
import { PermanentJobError } from "../../platform/jobs/index.js";
import type { ExperimentResults } from "../../platform/stats/results.js";
import { appendEvidence, getBelief } from "../beliefs/service.js";
import { loadCounts, toExperiment } from "./view.js";

/**
 * The belief evidence a completed experiment appends (docs/decisions/experiments.md, "Belief
 * evidence"). The beliefs rule moves log-odds by K · delta · w(n); an experiment's delta is its
 * strength of evidence, not its raw uplift: the uplift's z-score (uplift over its standard error,
 * taken from the 95% interval), capped at ±Z_FULL and scaled to [−1, 1]. A 200% uplift on a small,
 * wide-interval sample is a modest step; a precise result a larger one; with K = 4 and w(n) < 1
 * one automatic step moves log-odds by less than 4 (0.5 → at most 0.982).
 */
export const EVIDENCE_METHOD = "standardised_uplift";
/**
 * An experiment the sequential test decided: the same z, taken from the confidence sequence's
 * width instead, so the evidence is as strong as the decision (always-valid, hence wider).
 */
export const SEQUENTIAL_EVIDENCE_METHOD = "sequential_uplift";
/** z at which the evidence is full strength (delta ±1): five standard errors */
export const Z_FULL = 5;
/** z of the two-sided 95% interval the results report */
const Z_95 = 1.959963984540054;

/** delta for an uplift and its 95% interval: z = uplift / SE, capped at ±Z_FULL, divided by Z_FULL. */
export function standardisedEffect(uplift: number, interval: readonly [number, number]): number {
  if (uplift === 0) return 0;
  const se = (interval[1] - interval[0]) / (2 * Z_95);
  // No spread at all (rates of 0 or 100%): as strong as evidence gets, in the uplift's direction.
  if (!(se > 0)) return Math.sign(uplift);
  return Math.max(-1, Math.min(1, uplift / se / Z_FULL));
}

export interface ExperimentEvidence {
  delta: number;
  sampleSize: number;
  method: typeof EVIDENCE_METHOD | typeof SEQUENTIAL_EVIDENCE_METHOD;
}

/**
 * The winner's effect (or, when the control won or nothing was decided, the best-performing
 * variant's — negative when it lost); sampleSize = every exposure of the experiment. Null when no
 * variant has an uplift (a control without conversions).
 */
export function evidenceFromResults(
  results: ExperimentResults & { decision?: { method: string } },
  winner: string | null,
): ExperimentEvidence | null {
  const candidates = results.variants.slice(1).filter((v) => v.uplift !== null && v.upliftInterval !== null);
  const chosen =
    candidates.find((v) => v.name === winner) ??
    [...candidates].sort((a, b) => (b.chanceToBeatControl ?? 0) - (a.chanceToBeatControl ?? 0))[0];
  if (!chosen) return null;
  const sequential = results.decision?.method === "sequential" ? chosen.sequential?.interval : null;
  return sequential
    ? {
        delta: standardisedEffect(chosen.uplift!, sequential),
        sampleSize: results.totalExposures,
        method: SEQUENTIAL_EVIDENCE_METHOD,
      }
    : {
        delta: standardisedEffect(chosen.uplift!, chosen.upliftInterval!),
        sampleSize: results.totalExposures,
        method: EVIDENCE_METHOD,
      };
}

/**
 * Appends a completed experiment's evidence to its belief (the job completing queues; once, even
 * when the job reruns).
 */
export async function appendExperimentEvidence(db: DbOrTrx, experimentId: string): Promise<void> {
  const row = await db
    .selectFrom("experiments")
    .selectAll()
    .where("id", "=", experimentId)
    .executeTakeFirst();
  if (!row?.belief_id) return;
  const project = { id: row.project_id, workspaceId: row.workspace_id };
  const experiment = toExperiment(row, (await loadCounts(db, [row])).get(row.id)!);
  const evidence = evidenceFromResults(experiment.results, experiment.winner);
  if (!evidence) return;
  let belief: Awaited<ReturnType<typeof getBelief>>;
  try {
    belief = await getBelief(db, project, row.belief_id);
  } catch (err) {
    throw new PermanentJobError(`belief ${row.belief_id} is gone: ${(err as Error).message}`);
  }
  // At-least-once job: a rerun after a crash must not count the same experiment twice.
  if (belief.evidence.some((e) => e.experimentId === experimentId)) return;
  const { method, ...entry } = evidence;
  await appendEvidence(db, project, row.belief_id, { type: "experiment", experimentId, ...entry }, method);
}
