import { creationTime } from "../../platform/creation-time.js";
import { VersionedCache, bumpConfigVersion } from "../../platform/config-version.js";
import { newId } from "../../platform/crypto.js";
import { type Db, type DbOrTrx, withTransaction } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { AppError, notFound } from "../../platform/errors.js";
import { queueConversionRecompute, recomputesOf, toRecompute } from "./recompute-state.js";
import { type ParsedGoal, parsedGoal } from "./matching.js";
import type { ConversionGoalT, CreateConversionGoal, PatchConversionGoal } from "./schema.js";
import type { ConversionGoalRecomputeTable, ConversionGoalTable } from "./tables.js";
import "./tables.js";

/** Conversion goals: which events count as conversions (re-exported by service.ts, the module's surface). */

function toConversionGoal(r: ConversionGoalTable, recompute?: ConversionGoalRecomputeTable): ConversionGoalT {
  return {
    id: r.id,
    name: r.name,
    eventType: r.event_type,
    urlPattern: r.url_pattern,
    conditions: r.conditions ? JSON.parse(r.conditions) : null,
    createdAt: r.created_at,
    recompute: toRecompute(recompute),
  };
}

const SIGNUP_NAMES = new Set(["signup", "sign_up"]);
/** Analytics counts a goal of this name in the `signups` metric too (its hits under `$signup`). */
const isSignupName = (name: string) => SIGNUP_NAMES.has(name.toLowerCase());

/**
 * Whether a change alters which stored events the goal counts: what it matches, or a name that
 * enters or leaves the `signups` metric.
 */
function changesMatching(row: ConversionGoalTable, next: ConversionGoalTable): boolean {
  return (
    row.event_type !== next.event_type ||
    row.url_pattern !== next.url_pattern ||
    row.conditions !== next.conditions ||
    isSignupName(row.name) !== isSignupName(next.name)
  );
}

/**
 * Conversion goals are read by the event processors: each change bumps the project's configuration
 * version first in its transaction (platform/config-version.ts), so every event committed after it
 * sees it, on every process. The events stored before it are recounted by a job queued in the same
 * transaction (recompute-state.ts).
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
    created_at: creationTime(),
  };
  const recompute = await withTransaction(db, async (trx) => {
    await bumpConfigVersion(trx, project.id);
    const taken = await trx
      .selectFrom("conversion_goals")
      .select("id")
      .where("project_id", "=", project.id)
      .where("name", "=", input.name)
      .executeTakeFirst();
    if (taken) throw new AppError("CONFLICT", `a conversion goal named ${input.name} already exists`);
    await trx.insertInto("conversion_goals").values(row).execute();
    return queueConversionRecompute(trx, project, row.id, false);
  });
  return toConversionGoal(row, recompute);
}

/**
 * Changes a conversion goal; events committed after this commit are matched by the new definition,
 * and a change of what it matches (or `recompute: true`) recounts the stored ones. A rename carries
 * the project's goals that track it by name along.
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
    const recount = patch.recompute === true || changesMatching(row, next);
    const recompute = recount
      ? await queueConversionRecompute(trx, project, row.id, false)
      : (await recomputesOf(trx, project)).get(row.id);
    return toConversionGoal(next, recompute);
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
  if (rows.length === 0) return [];
  const recomputes = await recomputesOf(db, project);
  return rows.map((r) => toConversionGoal(r, recomputes.get(r.id)));
}

/**
 * For event processors: the project's conversion goals, their predicates parsed, cached in this
 * process for one configuration version (the one the events transaction read) and reloaded inside
 * it otherwise.
 */
export function conversionGoalsCache() {
  const cache = new VersionedCache<ParsedGoal<ConversionGoalT>[]>();
  return (db: DbOrTrx, project: ProjectRef, configVersion: number): Promise<ParsedGoal<ConversionGoalT>[]> =>
    cache.get(project.id, configVersion, async () =>
      (await listConversionGoals(db, project)).map(parsedGoal),
    );
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
    // Its hits and the conversions no other goal holds are taken out of the stored events' counts.
    await queueConversionRecompute(trx, project, id, true);
    return { id, deleted: true };
  });
}
