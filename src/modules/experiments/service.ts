import { withTransaction, type Db, type DbOrTrx } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { recordWeights } from "./weights-log.js";
import { bumpConfigVersion } from "../../platform/config-version.js";
import { newId } from "../../platform/crypto.js";
import { AppError, notFound, validation } from "../../platform/errors.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { getBelief } from "../beliefs/service.js";
import { completeExperiment } from "./completion.js";
import { extraGoalsOf, resolveMetrics } from "./metrics.js";
import { loadCounts, parseVariants, parseWeights, serviceEventData, toExperiment } from "./view.js";
import type { CreateExperiment, ExperimentT, PatchExperiment, VariantT } from "./schema.js";
import type { ExperimentStatus, ExperimentTable } from "./tables.js";
import "./tables.js";
import { appSlot, type ServiceDeps, stateOf } from "../../platform/deps.js";

export const DEFAULT_MIN_SAMPLE = 100;

/** DESIGN.md: draft→running, running→paused, paused→running, running|paused→completed. */
const TRANSITIONS: Record<ExperimentStatus, ExperimentStatus[]> = {
  draft: ["running"],
  running: ["paused", "completed"],
  paused: ["running", "completed"],
  completed: [],
};

const nowIso = () => new Date().toISOString();
export const equalWeights = (n: number) => new Array(n).fill(1 / n) as number[];

export async function findExperimentRow(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
): Promise<ExperimentTable> {
  const row = await db
    .selectFrom("experiments")
    .selectAll()
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (!row) throw notFound("experiment", id);
  return row;
}

export async function listExperiments(
  db: Db,
  project: ProjectRef,
  status?: ExperimentStatus,
): Promise<ExperimentT[]> {
  let q = db.selectFrom("experiments").selectAll().where("project_id", "=", project.id);
  if (status) q = q.where("status", "=", status);
  const rows = await q.orderBy("created_at", "desc").orderBy("id", "desc").execute();
  const counts = await loadCounts(db, rows);
  return rows.map((r) => toExperiment(r, counts.get(r.id)!));
}

export async function getExperiment(db: DbOrTrx, project: ProjectRef, id: string): Promise<ExperimentT> {
  const row = await findExperimentRow(db, project, id);
  return toExperiment(row, (await loadCounts(db, [row])).get(row.id)!);
}

function checkVariantNames(variants: VariantT[]): void {
  const seen = new Set<string>();
  for (const v of variants) {
    if (seen.has(v.name)) throw validation(`body.variants names must be unique ("${v.name}" repeats)`);
    seen.add(v.name);
  }
}

async function checkBelief(db: DbOrTrx, project: ProjectRef, beliefId: string | null | undefined) {
  if (!beliefId) return;
  try {
    await getBelief(db, project, beliefId);
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND")
      throw validation(`body.beliefId: belief ${beliefId} not found in this project`);
    throw err;
  }
}

export async function createExperiment(
  db: Db,
  project: ProjectRef,
  input: CreateExperiment,
): Promise<ExperimentT> {
  checkVariantNames(input.variants);
  await checkBelief(db, project, input.beliefId);
  const goals = await resolveMetrics(db, project, input);
  const t = nowIso();
  const row: ExperimentTable = {
    id: newId("exp"),
    workspace_id: project.workspaceId,
    project_id: project.id,
    name: input.name,
    status: "draft",
    mode: input.mode ?? "ab",
    target_url: input.targetUrl,
    traffic_split: input.trafficSplit ?? 100,
    variants: JSON.stringify(input.variants),
    weights: JSON.stringify(equalWeights(input.variants.length)),
    belief_id: input.beliefId ?? null,
    conversion_goal_ids: goals.conversion_goal_ids ?? null,
    metrics: goals.metrics ?? null,
    min_sample_per_variant: input.minSamplePerVariant ?? DEFAULT_MIN_SAMPLE,
    has_run: 0,
    winner: null,
    completion_reason: null,
    decision_method: null,
    started_at: null,
    completed_at: null,
    created_at: t,
    updated_at: t,
  };
  await db.insertInto("experiments").values(row).execute();
  const zeros = input.variants.map(() => 0);
  return toExperiment(row, {
    variants: input.variants.map((v) => ({ name: v.name, exposures: 0, conversions: 0 })),
    goals: extraGoalsOf(row).map((g) => ({ ...g, conversions: zeros })),
    history: [],
  });
}

export async function updateExperiment(
  db: Db,
  project: ProjectRef,
  patch: PatchExperiment,
  onChange: (projectId: string) => void = () => {},
): Promise<ExperimentT> {
  if (patch.variants) checkVariantNames(patch.variants);
  if (patch.beliefId !== undefined) await checkBelief(db, project, patch.beliefId);
  const result = await withTransaction(db, async (trx) => {
    // First: the event processors read experiments (status, variants, goals), so the change is
    // ordered against every events transaction (platform/config-version.ts), and the row is read
    // after any events transaction that completed it has committed.
    await bumpConfigVersion(trx, project.id);
    const row = await findExperimentRow(trx, project, patch.id);
    const next: ExperimentTable = {
      ...row,
      ...(await resolveMetrics(trx, project, patch, row)),
      updated_at: nowIso(),
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
    const to = patch.status;
    if (to !== undefined && !TRANSITIONS[row.status].includes(to)) {
      throw new AppError("INVALID_TRANSITION", `cannot move a ${row.status} experiment to ${to}`);
    }
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
  });
  onChange(project.id);
  return result;
}

/** What a feature flag's experiment rule needs of an experiment (the flags module's read). */
export interface ExperimentForFlags {
  id: string;
  name: string;
  status: ExperimentStatus;
  /** Variant names, in variant order. */
  variants: string[];
  weights: number[];
  trafficSplit: number;
  winner: string | null;
  updatedAt: string;
}

/** The project's experiments among `ids` (unknown ids are left out). */
export async function experimentsForFlags(
  db: DbOrTrx,
  projectId: string,
  ids: string[],
): Promise<ExperimentForFlags[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("experiments")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("id", "in", ids)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    status: r.status,
    variants: parseVariants(r).map((v) => v.name),
    weights: parseWeights(r),
    trafficSplit: Number(r.traffic_split),
    winner: r.winner,
    updatedAt: r.updated_at,
  }));
}

const CHANGE_LISTENERS = appSlot(
  "experiments.change-listeners",
  () => new Set<(projectId: string) => void>(),
);

/**
 * Calls `fn` with the project's id after any committed change to an experiment in this process
 * (status, variants, weights, winner): what serves experiments elsewhere (feature flags) refreshes.
 */
export function onExperimentChange(deps: ServiceDeps, fn: (projectId: string) => void): void {
  stateOf(deps, CHANGE_LISTENERS).add(fn);
}

/** Tells the listeners of `onExperimentChange`; the experiments module calls it after each commit. */
export function experimentChanged(deps: ServiceDeps, projectId: string): void {
  for (const fn of stateOf(deps, CHANGE_LISTENERS)) fn(projectId);
}

export { eraseExposuresOf } from "./erasure.js";
export { loadCounts, parseVariants, parseWeights, serviceEventData, toExperiment } from "./view.js";
