import { sql } from "kysely";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import { type Trx, enterExclusive, withTransaction } from "../../../platform/db/index.js";
import type { ServiceDeps } from "../../../platform/deps.js";
import { enqueueJob } from "../../../platform/jobs/index.js";
import { eventTypeScanPage } from "../../event-store/service.js";
import {
  CONVERSION_RECOMPUTE_JOB,
  type ConversionRecomputeJob,
  dropRecompute,
  listConversionGoals,
  recomputeTask,
  saveRecomputeProgress,
  scheduleGoalRecompute,
} from "../../goals/service.js";
import { logEngineChange } from "../engine/changes.js";
import { reconcile } from "./goal-reconcile.js";
import "../tables.js";

/**
 * A conversion goal's recount from stored events (the job the goals module queues when a goal is
 * created, changes what it matches, or is deleted). Page by page over the stored events of the
 * types that matter (the goal's, and those of the events it held), each page in one short
 * transaction that brings them to what the goal as it is now says:
 * - its hits (`analytics_goal_hits`), and `$signup` hits (a goal named signup counts there too);
 * - a conversion row for each event it matches, added with its daily rollup, breakdown and
 *   attribution counters; an event it no longer matches loses its row (and those counters) unless
 *   another goal matches it or it is a `$revenue` event.
 * Every write is idempotent per event (keys on the event id, counters moved only for rows actually
 * inserted or deleted), so events the pipeline counted meanwhile, a page run twice after a crash,
 * or a second recount change nothing. Pages of one project's recounts take turns (a lock), so two
 * goals' recounts never decide about one event's row at once; a recount of an older revision stops
 * at its next page.
 */

const PAGE_ROWS = 250;
/** A run hands over to a queued continuation after this long, so other jobs are not held up. */
const RUN_MS = 2000;

export type StepResult = "continue" | "done" | "stale";

/**
 * The job: pages for a while, then, when there is more, a continuation from where it stopped (the
 * cursor is kept with the goal's recount; the key keeps one continuation per position).
 */
export async function runConversionRecompute(deps: ServiceDeps, job: ConversionRecomputeJob): Promise<void> {
  let cursor: string | null = null;
  const result = await recomputeConversionsStep(deps, job, { onPage: (c) => (cursor = c) });
  if (result === "continue")
    await enqueueJob(deps.db, CONVERSION_RECOMPUTE_JOB, job, {
      uniqueKey: `${CONVERSION_RECOMPUTE_JOB.type}:${job.goalId}:${job.revision}@${cursor}`,
    });
}

/** Runs pages of the recount until done, stale, or the run's time (or `maxPages`) is up. */
export async function recomputeConversionsStep(
  deps: ServiceDeps,
  job: ConversionRecomputeJob,
  opts: { pageRows?: number; maxPages?: number; runMs?: number; onPage?: (cursor: string) => void } = {},
): Promise<StepResult> {
  const project = { id: job.projectId, workspaceId: job.workspaceId };
  const until = Date.now() + (opts.runMs ?? RUN_MS);
  const types = await firstTypes(deps, project, job);
  for (let page = 0; page < (opts.maxPages ?? Number.POSITIVE_INFINITY); page++) {
    const { result, cursor } = await withTransaction(deps.db, (trx) =>
      recomputePage(trx, deps, project, job, types, opts.pageRows ?? PAGE_ROWS),
    );
    if (cursor !== null) opts.onPage?.(cursor);
    if (result !== "continue" || Date.now() >= until) return result;
  }
  return "continue";
}

async function recomputePage(
  trx: Trx,
  deps: ServiceDeps,
  project: ProjectRef,
  job: ConversionRecomputeJob,
  firstPageTypes: string[] | null,
  pageRows: number,
): Promise<{ result: StepResult; cursor: string | null }> {
  await enterExclusive(trx, `conversion-recompute:${project.id}`);
  const goals = await listConversionGoals(trx, project);
  const task = await recomputeTask(trx, project, job.goalId, job.revision, goals);
  if (!task) return { result: "stale", cursor: null };
  if (task.state === "done") return { result: "done", cursor: task.cursor };
  const types = task.types ?? firstPageTypes ?? (task.goal ? [task.goal.eventType] : []);
  const page = await eventTypeScanPage(trx, project, task.cursor, types, pageRows);
  await reconcile(trx, deps, project, job.goalId, task.removing ? null : task.goal, goals, page.rows);
  if (page.rows.length > 0)
    await logEngineChange(trx, project.id, {
      kind: "recount",
      subject: { events: page.rows.map((e) => e.id) },
    });
  if (!page.end) {
    await saveRecomputeProgress(trx, job.goalId, job.revision, {
      cursor: page.next,
      types,
      processed: task.processed + page.rows.length,
      progress: page.progress,
      done: false,
    });
    return { result: "continue", cursor: page.next };
  }
  if (task.removing) {
    // Hits of events no longer stored, or of types it never matched: nothing else refers to them.
    await trx
      .deleteFrom("analytics_goal_hits")
      .where("project_id", "=", project.id)
      .where("goal_key", "=", job.goalId)
      .execute();
    await logEngineChange(trx, project.id, { kind: "goal-dropped", subject: { goal: job.goalId } });
    await dropRecompute(trx, job.goalId, job.revision);
  } else
    await saveRecomputeProgress(trx, job.goalId, job.revision, {
      cursor: page.next,
      types,
      processed: task.processed + page.rows.length,
      progress: 1,
      done: true,
    });
  // Growth goals measuring conversions, signups or this goal count again.
  await scheduleGoalRecompute(trx, project);
  return { result: "done", cursor: page.next };
}

const HITS_PAGE = 5000;

/**
 * Before a recount's first page: the goal's event type and the types of the events it holds hits
 * of (an edit or a deletion takes those out), read in short pages outside the page transactions.
 * Hits added meanwhile are the pipeline's, of the goal's current type. Null once past the first page.
 */
async function firstTypes(
  deps: ServiceDeps,
  project: ProjectRef,
  job: ConversionRecomputeJob,
): Promise<string[] | null> {
  const goals = await listConversionGoals(deps.db, project);
  const task = await recomputeTask(deps.db, project, job.goalId, job.revision, goals);
  if (!task || task.types !== null) return null;
  const types = new Set(task.goal && !task.removing ? [task.goal.eventType] : []);
  for (let after = ""; ; ) {
    const { rows } = await sql<{ event_id: string; type: string | null }>`select h.event_id, c.type
      from analytics_goal_hits h left join analytics_conversions c on c.event_id = h.event_id
      where h.project_id = ${project.id} and h.goal_key = ${job.goalId} and h.event_id > ${after}
      order by h.event_id limit ${HITS_PAGE}`.execute(deps.db);
    for (const r of rows) if (r.type !== null) types.add(r.type);
    if (rows.length < HITS_PAGE) return [...types].sort();
    after = rows[rows.length - 1]!.event_id;
  }
}
