import type { FeatureDefinition, SavedGroupsValues } from "@growthbook/growthbook";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { boundedCache } from "../../platform/cache.js";
import { type ServiceDeps, stateOf, stateSlot } from "../../platform/deps.js";
import { cohortHashedMembers } from "../analytics/service.js";
import { COHORT_ATTRIBUTES, type CohortAttribute, type CohortUse } from "./conditions.js";
import { type PayloadEntry, encodedOnce, etagOf } from "./sdk-cache.js";

/**
 * The server payload: what a server-side GrowthBook SDK gets from `GET /api/features/:clientKey`
 * when it also sends the project's secret key. It is the served payload with cohorts made testable
 * locally, in GrowthBook's secure-attribute form: a cohort test on `id` / `leadId` becomes a test
 * on `idHash` / `leadIdHash`, and the payload's saved groups hold the members' ids only as
 * `sha256(salt + id)` (hex). The application passes those hashes as attributes, with the project's
 * salt (`targetingSalt`). No member id is ever in it in plain text, and only a secret key gets it:
 * with the hashes and the salt, anyone could test a guessed id. Kept a minute per project, as
 * memberships are.
 */

/** The attribute an SDK passes the hashed id in, per cohort attribute. */
export const HASHED_ATTRIBUTE: Record<CohortAttribute, string> = { id: "idHash", leadId: "leadIdHash" };

/** At most this many ids per cohort and attribute; past it, that group is empty (as locally before). */
export const MAX_HASHED_IDS = 50_000;
const SERVER_PAYLOAD_TTL_MS = 60_000;

/** The project's salt for hashed targeting ids: derived from SECRET_KEY, so nothing is stored. */
export const targetingSalt = (deps: Pick<ServiceDeps, "secrets">, projectId: string): string =>
  deps.secrets.derive(`flags-targeting-salt\u0000${projectId}`).toString("hex").slice(0, 32);

export interface ServerPayload {
  bytes: Buffer;
  etag: string;
  encoded(encoding: "br" | "gzip"): Promise<Buffer>;
}

const SERVER_PAYLOADS = stateSlot("flags.server-payloads", () => ({
  recent: boundedCache<string, ServerPayload>(1_000, SERVER_PAYLOAD_TTL_MS),
  building: new Map<string, Promise<ServerPayload>>(),
}));

/** The server payload for the served `entry`: built at most once a minute per payload version. */
export async function serverPayload(
  deps: ServiceDeps,
  project: ProjectRef,
  entry: PayloadEntry,
): Promise<ServerPayload> {
  const key = `${project.id}\u0000${entry.etag}`;
  const { recent, building } = stateOf(deps, SERVER_PAYLOADS);
  const hit = recent.get(key);
  if (hit) return hit;
  let pending = building.get(key);
  if (!pending) {
    pending = build(deps, project, entry).finally(() => building.delete(key));
    building.set(key, pending);
    recent.set(key, await pending);
  }
  return pending;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

async function build(deps: ServiceDeps, project: ProjectRef, entry: PayloadEntry): Promise<ServerPayload> {
  const served = JSON.parse(entry.body) as { features: Record<string, FeatureDefinition> };
  const uses: CohortUse = new Map();
  for (const [key, feature] of Object.entries(served.features)) {
    const flagUses = entry.cohorts.get(key);
    if (!flagUses) continue;
    for (const [id, on] of flagUses) uses.set(id, new Set([...(uses.get(id) ?? []), ...on]));
    for (const rule of feature.rules ?? [])
      if (rule.condition) rule.condition = hashedCondition(rule.condition as Json) as typeof rule.condition;
  }
  const salt = targetingSalt(deps, project.id);
  const savedGroups: SavedGroupsValues = {};
  for (const [cohortId, on] of uses) {
    const members = await cohortHashedMembers(deps, project, cohortId, { salt, limit: MAX_HASHED_IDS });
    for (const attribute of on) savedGroups[groupOf(cohortId, attribute)] = members[attribute];
    if (members.truncated.length > 0)
      deps.log.warn(
        { projectId: project.id, cohortId, attributes: members.truncated, max: MAX_HASHED_IDS },
        "flags: a cohort is too large for local evaluation; its hashed group is empty",
      );
  }
  const body = JSON.stringify({ ...served, savedGroups });
  return { bytes: Buffer.from(body), etag: etagOf(body), encoded: encodedOnce(body) };
}

const groupOf = (cohortId: string, attribute: CohortAttribute) => `${cohortId}.${attribute}`;
const isCohortAttribute = (k: string): k is CohortAttribute =>
  (COHORT_ATTRIBUTES as readonly string[]).includes(k);
const isGroupOp = (op: string, arg: Json) =>
  (op === "$inGroup" || op === "$notInGroup") && typeof arg === "string";

/** Whether an attribute's operator object tests a cohort, at any depth of `$not`. */
function testsGroup(v: Record<string, Json>): boolean {
  return Object.entries(v).some(
    ([op, arg]) => isGroupOp(op, arg) || (op === "$not" && isObject(arg) && testsGroup(arg)),
  );
}

/** `parts` as one condition: itself when alone, else their `$and`. */
const allOf = (parts: Record<string, Json>[]): Record<string, Json> =>
  parts.length === 1 ? parts[0]! : { $and: parts };

/**
 * The same condition with every cohort test moved to the hashed attribute and its hashed group;
 * everything else as it was. Logical operators are walked; an attribute whose operators mix a
 * cohort test with other tests becomes the `$and` of the two, which GrowthBook reads the same.
 */
export function hashedCondition(condition: Json): Json {
  if (!isObject(condition)) return condition;
  const rest: Record<string, Json> = {};
  const moved: Record<string, Json>[] = [];
  for (const [k, v] of Object.entries(condition)) {
    if (k === "$and" || k === "$or" || k === "$nor") rest[k] = Array.isArray(v) ? v.map(hashedCondition) : v;
    else if (k === "$not") rest[k] = hashedCondition(v);
    else if (isCohortAttribute(k) && isObject(v) && testsGroup(v)) moved.push(hashedTest(k, v));
    else rest[k] = v;
  }
  if (moved.length === 0) return rest;
  return allOf(Object.keys(rest).length > 0 ? [rest, ...moved] : moved);
}

function hashedTest(attribute: CohortAttribute, ops: Record<string, Json>): Record<string, Json> {
  const plain: Record<string, Json> = {};
  const hashed: Record<string, Json> = {};
  const negated: Record<string, Json>[] = [];
  for (const [op, arg] of Object.entries(ops)) {
    if (isGroupOp(op, arg)) hashed[op] = groupOf(arg as string, attribute);
    else if (op === "$not" && isObject(arg) && testsGroup(arg))
      negated.push({ $not: hashedTest(attribute, arg) });
    else plain[op] = arg;
  }
  const parts: Record<string, Json>[] = [];
  if (Object.keys(plain).length > 0) parts.push({ [attribute]: plain });
  if (Object.keys(hashed).length > 0) parts.push({ [HASHED_ATTRIBUTE[attribute]]: hashed });
  return allOf([...parts, ...negated]);
}
