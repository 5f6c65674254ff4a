import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import { enqueueJob } from "../../platform/jobs/index.js";
import { CONVERSION_RECOMPUTE_JOB, type ConversionGoalT, type ConversionRecomputeT } from "./schema.js";
import type { ConversionGoalRecomputeTable } from "./tables.js";
import "./tables.js";

/**
 * A conversion goal's recount from stored events: its state lives here, beside the goal; the
 * analytics module runs the job (it owns the hits, conversions and counters) and reports through
 * these functions. Each change that needs a recount raises the goal's revision, so a job of an
 * older definition stops at its next page and the new one starts over.
 */

const nowIso = () => new Date().toISOString();

export function toRecompute(r: ConversionGoalRecomputeTable | undefined): ConversionRecomputeT | null {
  if (!r) return null;
  return {
    state: r.state,
    processed: Number(r.processed),
    progress: Number(r.progress),
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

/** In the transaction of the change: a new revision to recount (or, `removing`, to take out), and its job. */
export async function queueConversionRecompute(
  trx: Trx,
  project: ProjectRef,
  goalId: string,
  removing: boolean,
): Promise<ConversionGoalRecomputeTable> {
  const fresh = {
    removing: removing ? 1 : 0,
    state: "queued" as const,
    cursor: null,
    types: null,
    processed: 0,
    progress: 0,
    started_at: null,
    finished_at: null,
    updated_at: nowIso(),
  };
  const row = await trx
    .insertInto("conversion_goal_recomputes")
    .values({ goal_id: goalId, project_id: project.id, revision: 1, ...fresh })
    .onConflict((oc) =>
      oc.column("goal_id").doUpdateSet((eb) => ({
        revision: eb(eb.ref("conversion_goal_recomputes.revision"), "+", 1),
        ...fresh,
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  await enqueueJob(
    trx,
    CONVERSION_RECOMPUTE_JOB,
    { projectId: project.id, workspaceId: project.workspaceId, goalId, revision: Number(row.revision) },
    { uniqueKey: `${CONVERSION_RECOMPUTE_JOB.type}:${goalId}:${row.revision}` },
  );
  return row;
}

/** The recounts of the project's goals, by goal id. */
export async function recomputesOf(
  db: DbOrTrx,
  project: ProjectRef,
): Promise<Map<string, ConversionGoalRecomputeTable>> {
  const rows = await db
    .selectFrom("conversion_goal_recomputes")
    .selectAll()
    .where("project_id", "=", project.id)
    .execute();
  return new Map(rows.map((r) => [r.goal_id, r]));
}

/** What a recount job needs: its revision's state, the goal as it is now (null once deleted). */
export interface RecomputeTask {
  revision: number;
  removing: boolean;
  state: ConversionGoalRecomputeTable["state"];
  cursor: string | null;
  types: string[] | null;
  processed: number;
  goal: ConversionGoalT | null;
}

/** The goal's recount at `revision`, or null when a newer change replaced it (or it is gone). */
export async function recomputeTask(
  db: DbOrTrx,
  project: ProjectRef,
  goalId: string,
  revision: number,
  goals: ConversionGoalT[],
): Promise<RecomputeTask | null> {
  const row = await db
    .selectFrom("conversion_goal_recomputes")
    .selectAll()
    .where("goal_id", "=", goalId)
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (!row || Number(row.revision) !== revision) return null;
  return {
    revision,
    removing: row.removing === 1,
    state: row.state,
    cursor: row.cursor,
    types: row.types ? (JSON.parse(row.types) as string[]) : null,
    processed: Number(row.processed),
    goal: goals.find((g) => g.id === goalId) ?? null,
  };
}

/** Records a page's progress (only for the revision the job runs). */
export async function saveRecomputeProgress(
  trx: Trx,
  goalId: string,
  revision: number,
  next: { cursor: string; types: string[]; processed: number; progress: number; done: boolean },
): Promise<void> {
  const now = nowIso();
  await trx
    .updateTable("conversion_goal_recomputes")
    .set((eb) => ({
      state: next.done ? "done" : "running",
      cursor: next.cursor,
      types: JSON.stringify(next.types),
      processed: next.processed,
      progress: next.done ? 1 : Math.min(1, Math.max(0, next.progress)),
      started_at: eb.fn.coalesce("started_at", eb.val(now)),
      finished_at: next.done ? now : null,
      updated_at: now,
    }))
    .where("goal_id", "=", goalId)
    .where("revision", "=", revision)
    .execute();
}

/** A deleted goal's recount is over: nothing is left to show. */
export async function dropRecompute(trx: Trx, goalId: string, revision: number): Promise<void> {
  await trx
    .deleteFrom("conversion_goal_recomputes")
    .where("goal_id", "=", goalId)
    .where("revision", "=", revision)
    .where("removing", "=", 1)
    .execute();
}
