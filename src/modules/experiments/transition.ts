import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { completeExperiment } from "./completion.js";
import type { ExperimentT } from "./schema.js";
import type { ExperimentStatus, ExperimentTable } from "./tables.js";
import { loadCounts, serviceEventData, toExperiment } from "./view.js";
import { recordWeights } from "./weights-log.js";

/** DESIGN.md: draft→running, running→paused, paused→running, running|paused→completed. */
const TRANSITIONS: Record<ExperimentStatus, ExperimentStatus[]> = {
  draft: ["running"],
  running: ["paused", "completed"],
  paused: ["running", "completed"],
  completed: [],
};

/**
 * Writes the edited row with its status change, if any: completing decides the winner
 * (completion.ts); starting marks the experiment as having run, starts a bandit's allocation
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
