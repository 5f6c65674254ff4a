import type { ProjectRef } from "../../platform/auth/principal.js";
import { type DbOrTrx, type Trx, withTransaction } from "../../platform/db/index.js";
import { newId } from "../../platform/crypto.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { AppError, notFound, validation } from "../../platform/errors.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { experimentsForFlags } from "../experiments/service.js";
import { checkCohorts, savedGroupsFor } from "./cohorts.js";
import { type CohortRef, checkAttributes } from "./conditions.js";
import { evaluateEntry } from "./evaluate.js";
import { checkValue, experimentIdsIn, normalizeRules } from "./rules.js";
import {
  type ActorT,
  type CreateFlag,
  type EvaluationT,
  type FlagT,
  type HistoryEntryT,
  MAX_FLAGS_PER_PROJECT,
  type PatchFlag,
  type RuleInT,
} from "./schema.js";
import {
  bumpRevision,
  countFlags,
  findFlagRow,
  listFlagRows,
  readHistory,
  toFlag,
  toRow,
  writeHistory,
} from "./store.js";
import { flagsChanged } from "./sdk.js";
import { payloadWith } from "./sdk-cache.js";
import "./tables.js";

export type { ActorT, EvaluationT, FlagT } from "./schema.js";
/** The management routes' schemas (the MCP endpoint's tools take and answer the same). */
export { EvaluateBody, Evaluation, Flag, FlagKeyParams, ListFlagsQuery, PatchFlagBody } from "./schema.js";

export {
  admitStream,
  closeFlags,
  flagEvaluator,
  flagStreams,
  flagsChanged,
  getFlagSettings,
  putFlagSettings,
  remoteEvaluate,
} from "./sdk.js";
export { cachedSdkPayload, sdkPayload } from "./sdk-cache.js";
export { serverPayload } from "./server-payload.js";

export async function listFlags(
  deps: ServiceDeps,
  project: ProjectRef,
  filter: { experimentId?: string } = {},
): Promise<FlagT[]> {
  const flags = (await listFlagRows(deps.db, project.id)).map(toFlag);
  const { experimentId } = filter;
  if (!experimentId) return flags;
  return flags.filter((f) => f.rules.some((r) => r.type === "experiment" && r.experimentId === experimentId));
}

async function findFlag(db: DbOrTrx, project: ProjectRef, key: string): Promise<FlagT> {
  const row = await findFlagRow(db, project.id, key);
  if (!row) throw notFound("flag", key);
  return toFlag(row);
}

export const getFlag = (deps: ServiceDeps, project: ProjectRef, key: string) =>
  findFlag(deps.db, project, key);

async function checkedRules(db: DbOrTrx, project: ProjectRef, rules: RuleInT[], type: FlagT["valueType"]) {
  const experiments = await experimentsForFlags(db, project.id, experimentIdsIn(rules));
  const cohorts: CohortRef[] = [];
  const out = normalizeRules(rules, type, new Map(experiments.map((e) => [e.id, e])), "body.rules", cohorts);
  await checkCohorts(db, project, cohorts);
  return out;
}

type Action = HistoryEntryT["action"];

/**
 * Every change ends here, in its transaction: the history entry and the `flag.updated` event
 * (webhooks) commit with the change or not at all.
 */
async function record(
  trx: Trx,
  project: ProjectRef,
  change: { action: Action; actor: ActorT; at: string; before: FlagT | null; after: FlagT | null },
): Promise<void> {
  const flag = (change.after ?? change.before)!;
  await writeHistory(trx, project.id, { ...change, flagId: flag.id, flagKey: flag.key });
  await emitServiceEvent(trx, { workspaceId: project.workspaceId, projectId: project.id }, "flag.updated", {
    id: flag.id,
    key: flag.key,
    ...change,
  });
}

export async function createFlag(
  deps: ServiceDeps,
  project: ProjectRef,
  input: CreateFlag,
  actor: ActorT,
): Promise<FlagT> {
  checkValue(input.valueType, input.defaultValue, "body.defaultValue");
  const flag = await withTransaction(deps.db, async (trx) => {
    const { revisedAt } = await bumpRevision(trx, project.id);
    if (await findFlagRow(trx, project.id, input.key))
      throw new AppError("CONFLICT", `a flag with key ${input.key} already exists in this project`);
    if ((await countFlags(trx, project.id)) >= MAX_FLAGS_PER_PROJECT)
      throw new AppError("CONFLICT", `this project has ${MAX_FLAGS_PER_PROJECT} flags, the most it may hold`);
    const flag: FlagT = {
      id: newId("flag"),
      key: input.key,
      description: input.description ?? null,
      valueType: input.valueType,
      defaultValue: input.defaultValue,
      enabled: input.enabled ?? true,
      rules: await checkedRules(trx, project, input.rules ?? [], input.valueType),
      tags: input.tags ?? [],
      hashing: input.hashing ?? "growthbook",
      createdAt: revisedAt,
      updatedAt: revisedAt,
    };
    await trx.insertInto("flags").values(toRow(flag, project)).execute();
    await record(trx, project, { action: "created", actor, at: revisedAt, before: null, after: flag });
    return flag;
  });
  flagsChanged(deps, project.id);
  return flag;
}

/** Applies `change` to the stored flag in one transaction (the project's changes take turns). */
async function changeFlag(
  deps: ServiceDeps,
  project: ProjectRef,
  key: string,
  action: Action,
  actor: ActorT,
  change: (trx: Trx, before: FlagT) => Promise<FlagT>,
): Promise<FlagT> {
  const flag = await withTransaction(deps.db, async (trx) => {
    const { revisedAt } = await bumpRevision(trx, project.id);
    const before = await findFlag(trx, project, key);
    const after = { ...(await change(trx, before)), updatedAt: revisedAt };
    const row = toRow(after, project);
    await trx
      .updateTable("flags")
      .set({
        description: row.description,
        value_type: row.value_type,
        default_value: row.default_value,
        enabled: row.enabled,
        rules: row.rules,
        tags: row.tags,
        hashing: row.hashing,
        updated_at: row.updated_at,
      })
      .where("id", "=", before.id)
      .execute();
    await record(trx, project, { action, actor, at: revisedAt, before, after });
    return after;
  });
  flagsChanged(deps, project.id);
  return flag;
}

/** Any field but key; a new valueType re-checks the default and every rule value against it. */
export function updateFlag(
  deps: ServiceDeps,
  project: ProjectRef,
  key: string,
  patch: PatchFlag,
  actor: ActorT,
) {
  return changeFlag(deps, project, key, "updated", actor, async (trx, before) => {
    const type = patch.valueType ?? before.valueType;
    const defaultValue = patch.defaultValue !== undefined ? patch.defaultValue : before.defaultValue;
    if (patch.valueType !== undefined || patch.defaultValue !== undefined)
      checkValue(type, defaultValue, "body.defaultValue");
    const rules =
      patch.rules !== undefined || patch.valueType !== undefined
        ? await checkedRules(trx, project, (patch.rules ?? before.rules) as RuleInT[], type)
        : before.rules;
    return {
      ...before,
      description: patch.description !== undefined ? patch.description : before.description,
      valueType: type,
      defaultValue,
      enabled: patch.enabled ?? before.enabled,
      rules,
      tags: patch.tags ?? before.tags,
      hashing: patch.hashing ?? before.hashing,
    };
  });
}

/**
 * Ship a variant: the experiment rule becomes a force rule (same id and condition) serving that
 * variant's value, by default the completed experiment's winner.
 */
export function shipRule(
  deps: ServiceDeps,
  project: ProjectRef,
  key: string,
  ruleId: string,
  variant: string | undefined,
  actor: ActorT,
) {
  return changeFlag(deps, project, key, "shipped", actor, async (trx, before) => {
    const i = before.rules.findIndex((r) => r.id === ruleId);
    const rule = before.rules[i];
    if (!rule) throw notFound(`rule ${ruleId} of flag`, key);
    if (rule.type !== "experiment")
      throw new AppError(
        "CONFLICT",
        `rule ${ruleId} is a ${rule.type} rule; only experiment rules are shipped`,
      );
    const [e] = await experimentsForFlags(trx, project.id, [rule.experimentId]);
    if (!e) throw new AppError("CONFLICT", `experiment ${rule.experimentId} no longer exists`);
    const name = variant ?? e.winner;
    if (name === null)
      throw new AppError(
        "CONFLICT",
        `experiment ${e.id} has no winner (${e.status}): name the variant to ship`,
      );
    const index = e.variants.indexOf(name);
    if (index < 0 || index >= rule.variations.length)
      throw validation(`body.variant must be one of ${e.variants.join(", ")}`);
    const shipped = {
      id: rule.id,
      ...(rule.condition ? { condition: rule.condition } : {}),
      type: "force" as const,
      value: rule.variations[index],
    };
    return { ...before, rules: before.rules.map((r, j) => (j === i ? shipped : r)) };
  });
}

export async function deleteFlag(deps: ServiceDeps, project: ProjectRef, key: string, actor: ActorT) {
  const id = await withTransaction(deps.db, async (trx) => {
    const { revisedAt } = await bumpRevision(trx, project.id);
    const before = await findFlag(trx, project, key);
    await trx.deleteFrom("flags").where("id", "=", before.id).execute();
    await record(trx, project, { action: "deleted", actor, at: revisedAt, before, after: null });
    return before.id;
  });
  flagsChanged(deps, project.id);
  return { id, deleted: true as const };
}

/** Newest first; kept after a delete, so a deleted key still answers with its history. */
export async function flagHistory(
  deps: ServiceDeps,
  project: ProjectRef,
  key: string,
): Promise<HistoryEntryT[]> {
  const entries = await readHistory(deps.db, project.id, key);
  if (entries.length === 0) throw notFound("flag", key);
  return entries;
}

/** What an SDK given these attributes gets for the flag (GrowthBook's evaluator on the served payload). */
export async function evaluateFlag(
  deps: ServiceDeps,
  project: ProjectRef,
  key: string,
  attributes: Record<string, unknown> = {},
): Promise<EvaluationT> {
  checkAttributes(attributes, "body.attributes");
  await findFlag(deps.db, project, key);
  const entry = await payloadWith(deps, project.id, key);
  const uses = entry.cohorts.get(key);
  const groups = uses ? await savedGroupsFor(deps, project, uses, attributes) : undefined;
  return evaluateEntry(entry, key, attributes, groups);
}
