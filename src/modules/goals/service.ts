import { withTransaction, type Db, type DbOrTrx } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { VersionedCache, bumpConfigVersion } from "../../platform/config-version.js";
import { newId } from "../../platform/crypto.js";
import { AppError, notFound, validation } from "../../platform/errors.js";
import { emitServiceEvent, enqueueJob } from "../../platform/jobs/index.js";
import { checkMetric, measure } from "./metrics.js";
import { paceStatus, parseDeadline } from "./pace.js";
import type {
  ConversionGoalT,
  CreateConversionGoal,
  CreateGoal,
  GoalT,
  PatchConversionGoal,
  PatchGoal,
} from "./schema.js";
import type { ConversionGoalTable, GoalTable } from "./tables.js";
import "./tables.js";
import { RECOMPUTE_JOB } from "./schema.js";
import type { ServiceDeps } from "../../platform/deps.js";

export { type GoalMetricProvider, registerGoalMetricProvider } from "./metrics.js";
export { matchesConversionGoal } from "./matching.js";
export type { ConversionGoalT } from "./schema.js";

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

/**
 * Applies a new current value: status by pace unless set by hand, and goal.reached exactly once
 * (reached_at is the guard) when the target is first hit.
 */
async function applyProgress(
  trx: DbOrTrx,
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
        startedAt: Date.parse(row.created_at),
        deadline: parseDeadline(row.deadline) ?? 0,
      },
      Date.now(),
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

export async function listGoals(db: Db, project: ProjectRef): Promise<GoalT[]> {
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
  const conversionGoals = (await listConversionGoals(deps.db, project)).map((g) => g.name);
  checkMetric(deps, input.metric, conversionGoals);
  const t = nowIso();
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
    created_at: t,
    updated_at: t,
  };
  const current = await measure(deps, project, row);
  return withTransaction(deps.db, async (trx) => {
    await trx.insertInto("goals").values(row).execute();
    return toGoal(await applyProgress(trx, project, row, current));
  });
}

/** A status given by PATCH wins over the pace rule from then on. */
export async function updateGoal(deps: ServiceDeps, project: ProjectRef, patch: PatchGoal): Promise<GoalT> {
  if (patch.target !== undefined) checkTarget(patch.target);
  if (patch.deadline !== undefined) checkDeadline(patch.deadline);
  return withTransaction(deps.db, async (trx) => {
    const row = await findGoal(trx, project, patch.id);
    const next: GoalTable = {
      ...row,
      target: patch.target ?? row.target,
      deadline: patch.deadline ?? row.deadline,
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
        description: next.description,
        unit: next.unit,
        status: next.status,
        status_manual: next.status_manual,
        updated_at: next.updated_at,
      })
      .where("id", "=", row.id)
      .execute();
    return toGoal(await applyProgress(trx, project, next, next.current));
  });
}

export async function deleteGoal(db: Db, project: ProjectRef, id: string) {
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

function toConversionGoal(r: ConversionGoalTable): ConversionGoalT {
  return {
    id: r.id,
    name: r.name,
    eventType: r.event_type,
    urlPattern: r.url_pattern,
    conditions: r.conditions ? JSON.parse(r.conditions) : null,
    createdAt: r.created_at,
  };
}

/**
 * Conversion goals are read by the event processors: each change bumps the project's configuration
 * version first in its transaction (platform/config-version.ts), so every event committed after it
 * sees it, on every process.
 */
export async function createConversionGoal(
  db: Db,
  project: ProjectRef,
  input: CreateConversionGoal,
): Promise<ConversionGoalT> {
  const row: ConversionGoalTable = {
    id: newId("cgoal"),
    project_id: project.id,
    name: input.name,
    event_type: input.eventType,
    url_pattern: input.urlPattern ?? null,
    conditions: input.conditions ? JSON.stringify(input.conditions) : null,
    created_at: nowIso(),
  };
  await withTransaction(db, async (trx) => {
    await bumpConfigVersion(trx, project.id);
    const taken = await trx
      .selectFrom("conversion_goals")
      .select("id")
      .where("project_id", "=", project.id)
      .where("name", "=", input.name)
      .executeTakeFirst();
    if (taken) throw new AppError("CONFLICT", `a conversion goal named ${input.name} already exists`);
    await trx.insertInto("conversion_goals").values(row).execute();
  });
  return toConversionGoal(row);
}

/**
 * Changes a conversion goal; events committed after this commit are matched by the new definition.
 * A rename carries the project's goals that track it by name along.
 */
export async function patchConversionGoal(
  db: Db,
  project: ProjectRef,
  patch: PatchConversionGoal,
): Promise<ConversionGoalT> {
  return withTransaction(db, async (trx) => {
    await bumpConfigVersion(trx, project.id);
    const row = await trx
      .selectFrom("conversion_goals")
      .selectAll()
      .where("id", "=", patch.id)
      .where("project_id", "=", project.id)
      .executeTakeFirst();
    if (!row) throw notFound("conversion goal", patch.id);
    const next: ConversionGoalTable = {
      ...row,
      name: patch.name ?? row.name,
      event_type: patch.eventType ?? row.event_type,
      url_pattern: patch.urlPattern === undefined ? row.url_pattern : patch.urlPattern,
      conditions:
        patch.conditions === undefined
          ? row.conditions
          : patch.conditions
            ? JSON.stringify(patch.conditions)
            : null,
    };
    if (next.name !== row.name) {
      const taken = await trx
        .selectFrom("conversion_goals")
        .select("id")
        .where("project_id", "=", project.id)
        .where("name", "=", next.name)
        .executeTakeFirst();
      if (taken) throw new AppError("CONFLICT", `a conversion goal named ${next.name} already exists`);
      await trx
        .updateTable("goals")
        .set({ metric: next.name })
        .where("project_id", "=", project.id)
        .where("metric", "=", row.name)
        .execute();
    }
    await trx
      .updateTable("conversion_goals")
      .set({
        name: next.name,
        event_type: next.event_type,
        url_pattern: next.url_pattern,
        conditions: next.conditions,
      })
      .where("id", "=", row.id)
      .execute();
    return toConversionGoal(next);
  });
}

/** The project's conversion goals, newest first. */
export async function listConversionGoals(db: DbOrTrx, project: ProjectRef): Promise<ConversionGoalT[]> {
  const rows = await db
    .selectFrom("conversion_goals")
    .selectAll()
    .where("project_id", "=", project.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toConversionGoal);
}

/**
 * For event processors: the project's conversion goals, cached in this process for one
 * configuration version (the one the events transaction read) and reloaded inside it otherwise.
 */
export function conversionGoalsCache() {
  const cache = new VersionedCache<ConversionGoalT[]>();
  return (trx: DbOrTrx, project: ProjectRef, configVersion: number): Promise<ConversionGoalT[]> =>
    cache.get(project.id, configVersion, () => listConversionGoals(trx, project));
}

export async function deleteConversionGoal(db: Db, project: ProjectRef, id: string) {
  return withTransaction(db, async (trx) => {
    await bumpConfigVersion(trx, project.id);
    const res = await trx
      .deleteFrom("conversion_goals")
      .where("id", "=", id)
      .where("project_id", "=", project.id)
      .executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) throw notFound("conversion goal", id);
    return { id, deleted: true };
  });
}
