import type { ProjectRef } from "../../platform/auth/principal.js";
import { KEY_PREFIX } from "../../platform/auth/keys.js";
import { randomBase62, sha256Hex } from "../../platform/crypto.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { type ReadDeps, type ServiceDeps, appSlot, stateOf } from "../../platform/deps.js";
import { AppError, notFound } from "../../platform/errors.js";
import { findDashboardRow, gridOrder, toDashboard } from "./dashboards.js";
import { findInsightRow, insightsByIds, toInsight } from "./insights.js";
import { KeptAnswers, type Want } from "./kept.js";
import { runInsight } from "./run.js";
import { type TileOverride, applyOverride, overrideOf } from "./tile-override.js";
import { defineReadTask } from "../../platform/read-pool/task.js";
import type {
  DashboardResultsQueryT,
  DashboardResultsT,
  InsightKind,
  InsightResultT,
  SharedDashboardT,
} from "./schema.js";
import type { DashboardTable, InsightTable } from "./tables.js";

/** Running insights and dashboards, and a dashboard's public link. */

export async function insightResults(
  deps: ServiceDeps,
  project: ProjectRef,
  id: string,
): Promise<InsightResultT> {
  const row = await findInsightRow(deps.db, project, id);
  return deps.reads.run(insightTask, project, {
    kind: row.kind as InsightKind,
    settings: JSON.parse(row.settings),
  });
}

/** One insight's answer, on a reader thread. */
export const insightTask = defineReadTask(
  "insights.run",
  (ctx, project, q: { kind: InsightKind; settings: unknown }) => runInsight(ctx, project, q.kind, q.settings),
);

/** Every tile of a dashboard, on a reader thread. */
export const tilesTask = defineReadTask(
  "insights.tiles",
  (
    ctx,
    _project,
    q: { row: DashboardTable; insights: InsightTable[]; computedAt: string; override?: TileOverride },
  ) => runTiles(ctx, q.row, new Map(q.insights.map((i) => [i.id, i])), q.computedAt, q.override),
);

type Outcome =
  | { answer: InsightResultT; error: null }
  | { answer: null; error: { code: string; message: string } };

/**
 * Every tile of the dashboard, in grid order. Insights run side by side (PostgreSQL answers them
 * on several connections), each once however many tiles show it. A tile whose report refuses its
 * settings now (a deleted cohort in its filter) shows that error; the others still show.
 */
async function runTiles(
  deps: ReadDeps,
  row: DashboardTable,
  insights: Map<string, InsightTable>,
  computedAt: string,
  override?: TileOverride,
): Promise<DashboardResultsT> {
  const project = { id: row.project_id, workspaceId: row.workspace_id };
  const dashboard = toDashboard(row);
  const outcomes = new Map<string, Promise<Outcome>>();
  for (const [id, ins] of insights)
    outcomes.set(
      id,
      runInsight(
        deps,
        project,
        ins.kind as InsightKind,
        applyOverride(ins.kind as InsightKind, JSON.parse(ins.settings), override),
      ).then(
        (answer): Outcome => ({ answer, error: null }),
        (err: unknown): Outcome => {
          if (err instanceof AppError && err.status < 500)
            return { answer: null, error: { code: err.code, message: err.message } };
          throw err;
        },
      ),
    );
  const tiles = [];
  for (const item of gridOrder(dashboard.items)) {
    const ins = insights.get(item.insightId);
    // A tile's insight deleted meanwhile (deletes take tiles off too; this covers a race).
    if (!ins) continue;
    const outcome = await outcomes.get(item.insightId)!;
    const { name, description, kind } = toInsight(ins);
    tiles.push({
      insightId: ins.id,
      kind,
      name,
      description,
      x: item.x,
      y: item.y,
      w: item.w,
      h: item.h,
      ...outcome,
    });
  }
  return { dashboard, tiles, computedAt };
}

/** One kept answer per dashboard version, for the signed-in view and the public link alike (kept.ts). */
const KEPT = appSlot("insights.kept", () => new KeptAnswers<DashboardResultsT>());

/**
 * A dashboard's computation may run this long: it is kept for every later view, so it goes on
 * when the request that started it has stopped waiting (at the pool's deadline, with a 503).
 */
const COMPUTE_DEADLINE_MS = 5 * 60_000;

/**
 * The dashboard's answer as `want` allows. Its version is the dashboard's `updated_at` and each of
 * its insights' (`stampAfter` moves them on every edit; deleting an insight edits its dashboards),
 * so an edit of either is never answered from before it.
 */
async function keptTiles(
  deps: ServiceDeps,
  row: DashboardTable,
  want: Want,
  now: number,
  override?: TileOverride,
) {
  return withinDeadline(keptAnswer(deps, row, want, now, override), deps.config.readPool.timeoutMs);
}

/**
 * A dashboard's tiles computed now (joining a computation in flight), for a job: no request waits
 * on it, so only the computation's own deadline applies. The answer is kept for the next view.
 */
export const freshTiles = (deps: ServiceDeps, row: DashboardTable) =>
  keptAnswer(deps, row, "new", Date.now());

async function keptAnswer(
  deps: ServiceDeps,
  row: DashboardTable,
  want: Want,
  now: number,
  override?: TileOverride,
) {
  const ids = new Set(toDashboard(row).items.map((i) => i.insightId));
  const insights = await insightsByIds(deps.db, row.project_id, [...ids]);
  const versions = [...insights.values()].map((i) => `${i.id}@${i.updated_at}`).sort();
  const project = { id: row.project_id, workspaceId: row.workspace_id };
  return stateOf(deps, KEPT).get({
    key: [row.project_id, row.id, row.updated_at, JSON.stringify(override ?? null), ...versions].join(
      "\u0000",
    ),
    want,
    now,
    compute: (computedAt) =>
      deps.reads.run(
        tilesTask,
        project,
        { row, insights: [...insights.values()], computedAt, override },
        { deadlineMs: COMPUTE_DEADLINE_MS },
      ),
    // Ids only: the error's text may quote a report's settings, and the link's token is not here.
    failed: (err) =>
      deps.log.warn(
        { dashboardId: row.id, code: err instanceof AppError ? err.code : (err as Error)?.name },
        "dashboard results: background recomputation failed",
      ),
  });
}

/** The caller waits at most the read deadline; the computation goes on and is kept for the next view. */
function withinDeadline<T>(answer: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AppError("UNAVAILABLE", "the dashboard is still being computed; retry shortly", {
            "retry-after": "10",
          }),
        ),
      ms,
    );
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/**
 * The signed-in view: a kept answer (its `computedAt` says when), recomputed in the background
 * past a minute; `refresh` computes now. `now` is the clock, a parameter for tests.
 */
export async function dashboardResults(
  deps: ServiceDeps,
  project: ProjectRef,
  id: string,
  query: DashboardResultsQueryT = {},
  now = Date.now(),
): Promise<DashboardResultsT> {
  // The query is judged before the dashboard is looked up: bad input is a 400 whatever the id.
  const override = overrideOf(query, now);
  const row = await findDashboardRow(deps.db, project, id);
  const answer = await keptTiles(deps, row, query.refresh ? "new" : "kept", now, override);
  // Sharing does not change the version: the dashboard itself is today's row.
  return { ...answer, dashboard: toDashboard(row) };
}

// ---------------------------------------------------------------- public links

/** `svc_share_` + 43 base62 characters (256 bits); the prefix is platform/auth/keys.ts's, which log redaction reads. */
export const SHARE_PREFIX = KEY_PREFIX.share;

export async function shareDashboard(db: DbOrTrx, project: ProjectRef, id: string, publicUrl: string) {
  const row = await findDashboardRow(db, project, id);
  const token = `${SHARE_PREFIX}${randomBase62(32)}`;
  const since = new Date().toISOString();
  // A new link replaces the old one: only the hash is kept, so an old link cannot be shown again.
  await db
    .updateTable("dashboards")
    .set({ share_hash: sha256Hex(token), shared_at: since })
    .where("id", "=", row.id)
    .execute();
  return { token, url: `${publicUrl}/share/${token}`, since };
}

export async function unshareDashboard(db: DbOrTrx, project: ProjectRef, id: string) {
  const row = await findDashboardRow(db, project, id);
  if (!row.share_hash) throw notFound("public link of dashboard", id);
  await db
    .updateTable("dashboards")
    .set({ share_hash: null, shared_at: null })
    .where("id", "=", row.id)
    .execute();
  return { id, deleted: true as const };
}

/** The public view behind a link: 404 for an unknown or revoked link (checked on every request). */
export async function sharedDashboard(
  deps: ServiceDeps,
  token: string,
  now = Date.now(),
): Promise<SharedDashboardT> {
  const row = token.startsWith(SHARE_PREFIX)
    ? await deps.db
        .selectFrom("dashboards")
        .selectAll()
        .where("share_hash", "=", sha256Hex(token))
        .executeTakeFirst()
    : undefined;
  if (!row) throw new AppError("NOT_FOUND", "no shared dashboard at this link (it may have been revoked)");
  // Kept answers only, recomputed in the background at most once a minute per version whoever
  // asks: an anonymous caller cannot make Lift run reports faster than that, nor wait on them.
  const { tiles, computedAt } = await keptTiles(deps, row, "public", now);
  return {
    name: row.name,
    description: row.description,
    tiles: tiles.map(({ insightId: _id, ...tile }) => tile),
    computedAt,
  };
}
