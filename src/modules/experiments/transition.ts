import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { emitServiceEvent, enqueueJob } from "../../platform/jobs/index.js";
import { type DecisionMethod, decideOnStop } from "./outcome.js";
import { EVIDENCE_JOB, type ExperimentT } from "./schema.js";
import type { ExperimentStatus, ExperimentTable } from "./tables.js";
import { loadCounts, parseVariants, serviceEventData, toExperiment } from "./view.js";

/** DESIGN.md: draft→running, running→paused, paused→running, running|paused→completed. */
const TRANSITIONS: Record<ExperimentStatus, ExperimentStatus[]> = {
  draft: ["running"],
  running: ["paused", "completed"],
  paused: ["running", "completed"],
  completed: [],
};

/**
 * Writes the edited row with its status change, if any: completing decides the winner
 * (`completeExperiment`); starting marks the experiment as having run, starts a bandit's allocation
 * history and tells subscribers (`experiment.started`).
 */
export async function transitionExperiment(
  trx: Trx,
  project: ProjectRef,
  row: ExperimentTable,
  edited: ExperimentTable,
  to: ExperimentStatus | undefined,
): Promise<ExperimentT> {
  if (to !== undefined && !TRANSITIONS[row.status].includes(to))
    throw new AppError("INVALID_TRANSITION", `cannot move a ${row.status} experiment to ${to}`);
  const next = { ...edited };
  if (to === "completed") {
    await trx.updateTable("experiments").set(next).where("id", "=", row.id).execute();
    return completeExperiment(trx, next, "manual");
  }
  if (to === "running") {
    next.status = "running";
    next.has_run = 1;
    next.started_at = row.started_at ?? next.updated_at;
  } else if (to !== undefined) next.status = to;
  await trx.updateTable("experiments").set(next).where("id", "=", row.id).execute();
  // A bandit's allocation history starts with the weights it runs with (equal, or where it paused).
  if (to === "running" && next.mode === "bandit") await recordWeights(trx, row.id, next.weights);
  const experiment = toExperiment(next, (await loadCounts(trx, [next])).get(next.id)!);
  if (to === "running")
    await emitServiceEvent(
      trx,
      { workspaceId: project.workspaceId, projectId: project.id },
      "experiment.started",
      serviceEventData(experiment),
    );
  return experiment;
}

/**
 * Completes an experiment in the caller's transaction — by hand (above) or by the automatic rule
 * (processor.ts): records the winner (when the decision rule names one — on manual completion
 * too), fires experiment.completed, and queues the belief evidence, which the beliefs service
 * writes in its own transaction after this one commits (evidence.ts).
 */
export async function completeExperiment(
  trx: Trx,
  row: ExperimentTable,
  reason: "manual" | "significance",
  decided?: { winner: number | null; method: DecisionMethod },
): Promise<ExperimentT> {
  const counts = (await loadCounts(trx, [row])).get(row.id)!;
  const before = toExperiment(row, counts);
  const { winner, method } =
    decided ?? decideOnStop(before.results, Number(row.min_sample_per_variant), row.mode, before.weights);
  const t = new Date().toISOString();
  const next: ExperimentTable = {
    ...row,
    status: "completed",
    winner: winner === null ? null : parseVariants(row)[winner]!.name,
    completion_reason: reason,
    decision_method: method,
    completed_at: t,
    updated_at: t,
  };
  await trx
    .updateTable("experiments")
    .set({
      status: next.status,
      winner: next.winner,
      completion_reason: reason,
      decision_method: method,
      completed_at: t,
      updated_at: t,
    })
    .where("id", "=", row.id)
    .execute();
  const experiment = toExperiment(next, counts);
  const scope = { workspaceId: row.workspace_id, projectId: row.project_id };
  await emitServiceEvent(trx, scope, "experiment.completed", serviceEventData(experiment));
  if (row.belief_id && experiment.results.totalExposures > 0) {
    await enqueueJob(
      trx,
      EVIDENCE_JOB,
      { experimentId: row.id },
      { uniqueKey: `${EVIDENCE_JOB.type}:${row.id}` },
    );
  }
  return experiment;
}

/**
 * Records a bandit's allocation (when it starts, above, and at each reweighting, bandit.ts); a
 * second one in the same millisecond replaces the first.
 */
export async function recordWeights(db: DbOrTrx, experimentId: string, weights: string, at = Date.now()) {
  await db
    .insertInto("experiment_weights")
    .values({ experiment_id: experimentId, at, weights })
    .onConflict((oc) => oc.columns(["experiment_id", "at"]).doUpdateSet({ weights }))
    .execute();
}
