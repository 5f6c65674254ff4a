import { creationTime } from "../../platform/creation-time.js";
import { withTransaction, type DbOrTrx, type Trx } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import { notFound, validation } from "../../platform/errors.js";
import { emitServiceEvent, enqueueJob } from "../../platform/jobs/index.js";
import { listConversionGoals } from "./conversion-goals.js";
import { checkMetric, measure } from "./metrics.js";
import { paceStatus, parseDeadline, parseStart } from "./pace.js";
import type { CreateGoal, GoalT, PatchGoal } from "./schema.js";
import type { GoalTable } from "./tables.js";
import "./tables.js";
import { RECOMPUTE_JOB } from "./schema.js";
import type { ServiceDeps } from "../../platform/deps.js";

export { type GoalMetricProvider, registerGoalMetricProvider } from "./metrics.js";
export {
  conversionGoalsCache,
  createConversionGoal,
  deleteConversionGoal,
  listConversionGoals,
  patchConversionGoal,
} from "./conversion-goals.js";
export {
  type ConversionGoalDef,
  type MatchableEvent,
  goalPredicates,
  matchesConversionGoal,
  type ParsedGoal,
  parsedGoal,
} from "./matching.js";
export type { ConditionT, ConversionGoalT } from "./schema.js";
/** A conversion goal's recount from stored events: queued here, run by the analytics module. */
export { CONVERSION_RECOMPUTE_JOB, type ConversionRecomputeJob } from "./schema.js";
export {
  type RecomputeTask,
  dropRecompute,
  recomputeTask,
  saveRecomputeProgress,
} from "./recompute-state.js";

/** Enqueues a recompute of the project's goals (deduplicated while one is pending). */
export async function scheduleGoalRecompute(db: DbOrTrx, project: ProjectRef): Promise<void> {
  await enqueueJob(
    db,
    RECOMPUTE_JOB,
    { projectId: project.id, workspaceId: project.workspaceId },
    {
      uniqueKey: `${RECOMPUTE_JOB.type}:${project.id}`,
    },
  );
}

const nowIso = () => new Date().toISOString();

function toGoal(r: GoalTable): GoalT {
  return {
    id: r.id,
    metric: r.metric,
    target: r.target,
    current: r.current,
    deadline: r.deadline,
    status: r.status,
    statusSource: r.status_manual ? "manual" : "pace",
    description: r.description,
    unit: r.unit,
    reachedAt: r.reached_at,
    startDate: r.start_date,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function checkTarget(target: number): void {
  if (!Number.isFinite(target) || target <= 0) throw validation("body.target must be a number > 0");
}
function checkDeadline(deadline: string): number {
  const t = parseDeadline(deadline);
  if (t === null) throw validation("body.deadline must be an ISO 8601 date (YYYY-MM-DD or a date-time)");
  return t;
}
/** A start must parse and come before the deadline (a goal counting nothing cannot progress). */
function checkStart(startDate: string, deadline: string): void {
  const t = parseStart(startDate);
  if (t === null) throw validation("body.startDate must be an ISO 8601 date (YYYY-MM-DD or a date-time)");
  if (t >= (parseDeadline(deadline) ?? Number.POSITIVE_INFINITY))
    throw validation("body.startDate must be before the deadline");
}
const startOf = (r: GoalTable) => parseStart(r.start_date) ?? Date.parse(r.created_at);

/**
 * Applies a new current value: status by pace unless set by hand, and goal.reached exactly once
 * (reached_at is the guard) when the target is first hit.
 */
async function applyProgress(
  trx: Trx,
  project: ProjectRef,
  row: GoalTable,
  current: number,
): Promise<GoalTable> {
  const next: GoalTable = { ...row, current, updated_at: nowIso() };
  if (!row.status_manual) {
    next.status = paceStatus(
      {
        metric: row.metric,
        target: row.target,
        current,
        startedAt: startOf(row),
        deadline: parseDeadline(row.deadline) ?? 0,
      },
      // A creation stamp may run ahead of the clock (creation-time.ts): counting began at creation,
      // never after now, so "not started yet" is only a start date ahead.
      Math.max(Date.now(), Date.parse(row.created_at)),
    );
  }
  const reachedNow = !row.reached_at && current >= row.target;
  if (reachedNow) next.reached_at = next.updated_at;
  await trx
    .updateTable("goals")
    .set({
      current: next.current,
      status: next.status,
      reached_at: next.reached_at,
      updated_at: next.updated_at,
    })
    .where("id", "=", row.id)
    .execute();
  if (reachedNow) await emitServiceEvent(trx, project, "goal.reached", toGoal(next));
  return next;
}

export async function listGoals(db: DbOrTrx, project: ProjectRef): Promise<GoalT[]> {
  const rows = await db
    .selectFrom("goals")
    .selectAll()
    .where("project_id", "=", project.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toGoal);
}

async function findGoal(db: DbOrTrx, project: ProjectRef, id: string): Promise<GoalTable> {
  const row = await db
    .selectFrom("goals")
    .selectAll()
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (!row) throw notFound("goal", id);
  return row;
}

export async function createGoal(deps: ServiceDeps, project: ProjectRef, input: CreateGoal): Promise<GoalT> {
  checkTarget(input.target);
  checkDeadline(input.deadline);
  if (input.startDate !== undefined) checkStart(input.startDate, input.deadline);
  const conversionGoals = (await listConversionGoals(deps.db, project)).map((g) => g.name);
  checkMetric(deps, input.metric, conversionGoals);
  const t = creationTime();
  const row: GoalTable = {
    id: newId("goal"),
    workspace_id: project.workspaceId,
    project_id: project.id,
    metric: input.metric,
    target: input.target,
    current: 0,
    deadline: input.deadline,
    status: "on_track",
    status_manual: 0,
    description: input.description ?? null,
    unit: input.unit ?? null,
    reached_at: null,
    start_date: input.startDate ?? t,
    created_at: t,
    updated_at: t,
  };
  const current = await measure(deps, project, row);
  return withTransaction(deps.db, async (trx) => {
    await trx.insertInto("goals").values(row).execute();
    return toGoal(await applyProgress(trx, project, row, current));
  });
}

/**
 * A status given by PATCH wins over the pace rule from then on. A new startDate counts the metric
 * again from there (measured before the transaction: providers read the database themselves).
 */
export async function updateGoal(deps: ServiceDeps, project: ProjectRef, patch: PatchGoal): Promise<GoalT> {
  if (patch.target !== undefined) checkTarget(patch.target);
  if (patch.deadline !== undefined) checkDeadline(patch.deadline);
  let recounted: number | undefined;
  if (patch.startDate !== undefined) {
    const row = await findGoal(deps.db, project, patch.id);
    checkStart(patch.startDate, patch.deadline ?? row.deadline);
    if (patch.startDate !== row.start_date)
      recounted = await measure(deps, project, { ...row, start_date: patch.startDate });
  }
  return withTransaction(deps.db, async (trx) => {
    const row = await findGoal(trx, project, patch.id);
    const next: GoalTable = {
      ...row,
      target: patch.target ?? row.target,
      deadline: patch.deadline ?? row.deadline,
      start_date: patch.startDate ?? row.start_date,
      description: patch.description ?? row.description,
      unit: patch.unit ?? row.unit,
      status: patch.status ?? row.status,
      status_manual: patch.status ? 1 : row.status_manual,
      updated_at: nowIso(),
    };
    await trx
      .updateTable("goals")
      .set({
        target: next.target,
        deadline: next.deadline,
        start_date: next.start_date,
        description: next.description,
        unit: next.unit,
        status: next.status,
        status_manual: next.status_manual,
        updated_at: next.updated_at,
      })
      .where("id", "=", row.id)
      .execute();
    return toGoal(await applyProgress(trx, project, next, recounted ?? next.current));
  });
}

export async function deleteGoal(db: DbOrTrx, project: ProjectRef, id: string) {
  const res = await db
    .deleteFrom("goals")
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound("goal", id);
  return { id, deleted: true };
}

/** Recomputes the goals of every project that has any (the hourly refresh). */
export async function recomputeAllGoals(deps: ServiceDeps): Promise<void> {
  const projects = await deps.db
    .selectFrom("goals")
    .select(["project_id", "workspace_id"])
    .distinct()
    .execute();
  for (const p of projects) await recomputeGoals(deps, { id: p.project_id, workspaceId: p.workspace_id });
}

/** Recomputes every goal's current value from the metric providers (the recompute job). */
export async function recomputeGoals(deps: ServiceDeps, project: ProjectRef): Promise<void> {
  const rows = await deps.db.selectFrom("goals").selectAll().where("project_id", "=", project.id).execute();
  for (const row of rows) {
    const current = await measure(deps, project, row);
    if (current === row.current && row.reached_at) continue;
    await withTransaction(deps.db, async (trx) => {
      const fresh = await findGoal(trx, project, row.id);
      await applyProgress(trx, project, fresh, current);
    });
  }
}
