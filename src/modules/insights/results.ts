import type { ProjectRef } from "../../platform/auth/principal.js";
import { boundedCache } from "../../platform/cache.js";
import { randomBase62, sha256Hex } from "../../platform/crypto.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { appSlot, type ServiceDeps, stateOf } from "../../platform/deps.js";
import { AppError, notFound } from "../../platform/errors.js";
import { findDashboardRow, gridOrder, toDashboard } from "./dashboards.js";
import { findInsightRow, insightsByIds, toInsight } from "./insights.js";
import { runInsight } from "./run.js";
import type { DashboardResultsT, InsightKind, InsightResultT, SharedDashboardT } from "./schema.js";
import type { DashboardTable } from "./tables.js";

/** Running insights and dashboards, and a dashboard's public link (issue 34). */

export async function insightResults(db: DbOrTrx, project: ProjectRef, id: string): Promise<InsightResultT> {
  const row = await findInsightRow(db, project, id);
  return runInsight(db, project, row.kind as InsightKind, JSON.parse(row.settings));
}

type Outcome =
  | { answer: InsightResultT; error: null }
  | { answer: null; error: { code: string; message: string } };

/**
 * Every tile of the dashboard, in grid order. Insights run side by side (PostgreSQL answers them
 * on several connections), each once however many tiles show it. A tile whose report refuses its
 * settings now (a deleted cohort in its filter) shows that error; the others still show.
 */
async function runTiles(db: DbOrTrx, row: DashboardTable) {
  const project = { id: row.project_id, workspaceId: row.workspace_id };
  const dashboard = toDashboard(row);
  const insights = await insightsByIds(db, row.project_id, [
    ...new Set(dashboard.items.map((i) => i.insightId)),
  ]);
  const outcomes = new Map<string, Promise<Outcome>>();
  for (const [id, ins] of insights)
    outcomes.set(
      id,
      runInsight(db, project, ins.kind as InsightKind, JSON.parse(ins.settings)).then(
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
  return { dashboard, tiles, computedAt: new Date().toISOString() };
}

export async function dashboardResults(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
): Promise<DashboardResultsT> {
  return runTiles(db, await findDashboardRow(db, project, id));
}

// ---------------------------------------------------------------- public links

/** `svc_share_` + 43 base62 characters (256 bits); the log redaction knows the prefix. */
export const SHARE_PREFIX = "svc_share_";

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

/**
 * Results of a shared dashboard, computed at most once a minute per dashboard version whoever
 * asks (one computation in flight): an anonymous caller cannot make Lift run reports faster than
 * that, however often it loads the page.
 */
const SHARED_TTL_MS = 60_000;
const SHARED = appSlot("insights.shared", () =>
  boundedCache<string, Promise<SharedDashboardT>>(500, SHARED_TTL_MS),
);

/** The public view behind a link: 404 for an unknown or revoked link (checked on every request). */
export async function sharedDashboard(deps: ServiceDeps, token: string): Promise<SharedDashboardT> {
  const row = token.startsWith(SHARE_PREFIX)
    ? await deps.db
        .selectFrom("dashboards")
        .selectAll()
        .where("share_hash", "=", sha256Hex(token))
        .executeTakeFirst()
    : undefined;
  if (!row) throw new AppError("NOT_FOUND", "no shared dashboard at this link (it may have been revoked)");
  const cache = stateOf(deps, SHARED);
  const key = `${row.id}\u0000${row.updated_at}`;
  let view = cache.get(key);
  if (!view) {
    view = runTiles(deps.db, row).then(({ dashboard, tiles, computedAt }) => ({
      name: dashboard.name,
      description: dashboard.description,
      tiles: tiles.map(({ insightId: _id, ...tile }) => tile),
      computedAt,
    }));
    cache.set(key, view);
    // A failed computation is not kept: the callers awaiting `view` get its error, the next one retries.
    void view.catch(() => cache.delete(key));
  }
  return view;
}
