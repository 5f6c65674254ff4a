import type { ProjectRef } from "../../platform/auth/principal.js";
import { withTransaction } from "../../platform/db/index.js";
import { type ServiceDeps, stateOf } from "../../platform/deps.js";
import { savedGroupsFor } from "./cohorts.js";
import { checkAttributes } from "./conditions.js";
import { evaluateEntry, remoteEvaluation } from "./evaluate.js";
import { FLAGS_HUB } from "./hub.js";
import type { RemoteEvalBodyT } from "./schema.js";
import { type PayloadEntry, sdkPayload } from "./sdk-cache.js";
import { targetingSalt } from "./server-payload.js";
import { bumpRevision, readRevision } from "./store.js";
import { addressGroup } from "./stream-limits.js";
import type { StreamSlot } from "./streams.js";

/**
 * The SDK side of the flags beyond the served payload (sdk-cache.ts): change notices, remote
 * evaluation, streams, SDK settings.
 */

const hubOf = (deps: ServiceDeps) => stateOf(deps, FLAGS_HUB);

/** Tells every process that the project's payload may have changed (after the change committed). */
export function flagsChanged(deps: ServiceDeps, projectId: string): void {
  hubOf(deps).changed(projectId);
}

/**
 * Many evaluations against one payload snapshot (the agreement tests; batch tooling): the same
 * function the evaluate endpoint answers with, without cohorts (a cohort test matches no one here,
 * as in a local SDK; the evaluate endpoint fills them in).
 */
export async function flagEvaluator(deps: ServiceDeps, project: ProjectRef) {
  const entry = await sdkPayload(deps, project.id);
  return (key: string, attributes: Record<string, unknown>) => evaluateEntry(entry, key, attributes);
}

export async function remoteEvaluate(deps: ServiceDeps, project: ProjectRef, body: RemoteEvalBodyT) {
  const entry = await sdkPayload(deps, project.id);
  // Attributes are checked before any cohort is looked up for them.
  checkAttributes(body.attributes, "body.attributes");
  const groups =
    entry.allCohorts.size > 0
      ? await savedGroupsFor(deps, project, entry.allCohorts, body.attributes ?? {})
      : undefined;
  return remoteEvaluation(entry, body, groups);
}

export async function getFlagSettings(deps: ServiceDeps, project: ProjectRef) {
  return {
    remoteEvalOnly: (await readRevision(deps.db, project.id)).remoteEvalOnly,
    targetingSalt: targetingSalt(deps, project.id),
  };
}

export async function putFlagSettings(
  deps: ServiceDeps,
  project: ProjectRef,
  input: { remoteEvalOnly: boolean },
) {
  await withTransaction(deps.db, async (trx) => {
    await bumpRevision(trx, project.id);
    await trx
      .updateTable("flag_settings")
      .set({ remote_eval_only: input.remoteEvalOnly ? 1 : 0 })
      .where("project_id", "=", project.id)
      .execute();
  });
  flagsChanged(deps, project.id);
  return { remoteEvalOnly: input.remoteEvalOnly, targetingSalt: targetingSalt(deps, project.id) };
}

/**
 * Admits a stream of the project from the client at `ip`: takes its place under the caps (429 or
 * 503 past one), then loads the payload it starts with (the place is given back if that fails).
 */
export async function admitStream(
  deps: ServiceDeps,
  projectId: string,
  ip: string,
): Promise<{ slot: StreamSlot; entry: PayloadEntry }> {
  const streams = hubOf(deps).streams;
  const slot = streams.reserve(projectId, addressGroup(ip));
  try {
    return { slot, entry: await sdkPayload(deps, projectId) };
  } catch (err) {
    streams.release(slot);
    throw err;
  }
}

/** Open SDK streams of this process (routes hand them responses; metrics read the count). */
export const flagStreams = (deps: ServiceDeps) => hubOf(deps).streams;

/** Ends this process's streams and its notifier (shutdown). */
export const closeFlags = (deps: ServiceDeps) => hubOf(deps).close();
