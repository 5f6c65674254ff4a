import { creationTime } from "../../platform/creation-time.js";
import { withTransaction, type Db, type DbOrTrx } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { bumpConfigVersion } from "../../platform/config-version.js";
import { newId } from "../../platform/crypto.js";
import { AppError, notFound, validation } from "../../platform/errors.js";
import { equalWeights } from "../../platform/stats/allocation.js";
import { getBelief } from "../beliefs/service.js";
import { editExperiment, targetUrlOnCreate } from "./edit.js";
import { extraGoalsOf, resolveMetrics } from "./metrics.js";
import { transitionExperiment } from "./transition.js";
import { loadCounts, parseVariants, parseWeights, toExperiment } from "./view.js";
import type { CreateExperiment, ExperimentT, PatchExperiment, VariantT } from "./schema.js";
import type { ExperimentStatus, ExperimentTable } from "./tables.js";
import "./tables.js";
import { appSlot, type ServiceDeps, stateOf } from "../../platform/deps.js";

export const DEFAULT_MIN_SAMPLE = 100;

const nowIso = () => new Date().toISOString();

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
  db: DbOrTrx,
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
  db: DbOrTrx,
  project: ProjectRef,
  input: CreateExperiment,
): Promise<ExperimentT> {
  checkVariantNames(input.variants);
  const targetUrl = targetUrlOnCreate(input);
  await checkBelief(db, project, input.beliefId);
  const goals = await resolveMetrics(db, project, input);
  const t = creationTime();
  const row: ExperimentTable = {
    id: newId("exp"),
    workspace_id: project.workspaceId,
    project_id: project.id,
    name: input.name,
    status: "draft",
    mode: input.mode ?? "ab",
    target_url: targetUrl,
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

/**
 * PATCH /api/experiments: the field edits (edit.ts), then any status change (transition.ts),
 * in one transaction, ordered against every events transaction.
 */
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
    const edited = await editExperiment(trx, project, row, patch, nowIso());
    return transitionExperiment(trx, project, row, edited, patch.status);
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
/** The list and get routes' schemas (the MCP endpoint's tools take and answer the same). */
export { Experiment, IdParam, ListQuery as ListExperimentsQuery } from "./schema.js";
