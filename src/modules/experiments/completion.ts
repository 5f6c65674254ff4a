import type { Trx, DbOrTrx } from "../../platform/db/index.js";
import { emitServiceEvent, enqueueJob, PermanentJobError } from "../../platform/jobs/index.js";
import { EVIDENCE_JOB } from "./schema.js";
import { appendEvidence, getBelief } from "../beliefs/service.js";
import { evidenceFromResults } from "./evidence.js";
import { type DecisionMethod, decideOnStop } from "./decision.js";
import type { ExperimentT } from "./schema.js";
import { loadCounts, parseVariants, serviceEventData, toExperiment } from "./view.js";
import type { ExperimentTable } from "./tables.js";

/**
 * Completes an experiment in the caller's transaction: records the winner (when the decision rule
 * names one — on manual completion too), fires experiment.completed, and queues the belief
 * evidence, which the beliefs service writes in its own transaction after this one commits.
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

/** The evidence a completed experiment adds to its belief (once, even when the job reruns). */
export async function appendExperimentEvidence(db: DbOrTrx, experimentId: string): Promise<void> {
  {
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
}
