import { isDeepStrictEqual } from "node:util";
import type { FeatureDefinition } from "@growthbook/growthbook";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ServiceDeps } from "../../../platform/deps.js";
import { postHogGroupTraits } from "../../events/service.js";
import { experimentsForFlags } from "../../experiments/service.js";
import { savedGroupsFor } from "../cohorts.js";
import { type CohortUse, checkAttributes } from "../conditions.js";
import { remoteEvaluation } from "../evaluate.js";
import { etagOf, type PayloadEntry, sdkPayload } from "../sdk-cache.js";
import { listFlagRows, toFlag } from "../store.js";
import { definitionOf, experimentIdsOfFlags, serverOnlyDefinition } from "./definitions.js";
import type { FlagDetailT, PostHogFlagsBodyT } from "./schema.js";

/**
 * PostHog's remote flag evaluation is Lift's remote evaluation (`remoteEvaluation`, what
 * `POST /api/eval/:clientKey` answers with, over the same cached payload and cohorts), so
 * posthog-js, posthog-node, a GrowthBook SDK and an OFREP provider get the same value for the same
 * person. What PostHog's answer adds is read off that value: on or off, a variant, a payload.
 */

/** The answer's formats: `flags` (/flags?v=2, /decide?v=4), `legacy` (/decide?v=3, /flags?v=1). */
export type FlagsFormat = "flags" | "legacy";

/** `/flags` answers its details from v2 on; `/decide` from v4 (v3 and older: the legacy values). */
export function formatOf(path: "flags" | "decide", version: string | undefined): FlagsFormat {
  const v = Number.parseInt(version ?? "", 10);
  return (path === "flags" ? v >= 2 : v >= 4) ? "flags" : "legacy";
}

/** A flag of the remote evaluation's answer: its value, and the tracking call of an experiment. */
interface Evaluated {
  defaultValue?: unknown;
  rules?: { tracks?: { experiment?: { key?: string }; result?: { key?: string } }[] }[];
}

/**
 * PostHog's person as GrowthBook's attributes: the person properties as they are, the groups
 * (`groups`: type → key) and their properties (`groupProperties`: each named group's stored traits,
 * `stored`, under the request's own, which win as in PostHog), and `distinct_id` as `id`, what
 * rollouts and experiments hash on.
 */
export function attributesOf(
  body: PostHogFlagsBodyT,
  stored: Record<string, Record<string, unknown>> = {},
): Record<string, unknown> {
  const attributes: Record<string, unknown> = { ...body.person_properties };
  if (body.groups && Object.keys(body.groups).length > 0) attributes.groups = body.groups;
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [type, traits] of Object.entries(stored)) groupProperties[type] = { ...traits };
  for (const [type, sent] of Object.entries(body.group_properties ?? {}))
    groupProperties[type] = { ...groupProperties[type], ...(sent as Record<string, unknown>) };
  if (Object.keys(groupProperties).length > 0) attributes.groupProperties = groupProperties;
  attributes.id = body.distinct_id;
  return attributes;
}

/**
 * A Lift value as PostHog's flag: a boolean is on or off; a string is a variant (the empty string:
 * off); any other value is on with the value as its payload. A value other than a boolean is also
 * the payload, as JSON text (PostHog's payloads are JSON text).
 */
function detailOf(key: string, definition: FeatureDefinition, evaluated: Evaluated): FlagDetailT {
  const value = evaluated.defaultValue;
  const track = evaluated.rules?.[0]?.tracks?.[0];
  const reason =
    track?.result?.key !== undefined
      ? {
          code: "condition_match" as const,
          description: `experiment ${track.experiment?.key ?? ""}: variant ${track.result.key}`,
        }
      : !definition.rules?.length
        ? { code: "condition_match" as const, description: "the flag serves one value to everyone" }
        : isDeepStrictEqual(value, definition.defaultValue)
          ? { code: "no_condition_match" as const, description: "no rule matched: the flag's default" }
          : { code: "condition_match" as const, description: "a rule matched" };
  if (typeof value === "boolean") return { key, enabled: value, reason, metadata: {} };
  const enabled = value !== null && value !== "";
  return {
    key,
    enabled,
    ...(typeof value === "string" && enabled ? { variant: value } : {}),
    reason,
    metadata: enabled ? { payload: JSON.stringify(value) } : {},
  };
}

/** The keys asked for (posthog-node's `flag_keys_to_evaluate`, posthog-js's `flag_keys`) that are flags. */
function keysOf(entry: PayloadEntry, body: PostHogFlagsBodyT): string[] {
  const all = Object.keys(entry.payload.features);
  const asked = body.flag_keys_to_evaluate ?? body.flag_keys;
  if (!asked) return all;
  return [...new Set(asked)].filter((k) => Object.hasOwn(entry.payload.features, k));
}

/** Each asked flag's detail for this person (none with `disable_flags`). */
async function evaluate(
  deps: ServiceDeps,
  project: ProjectRef,
  body: PostHogFlagsBodyT,
): Promise<{ details: FlagDetailT[]; errors: boolean }> {
  // Bounded as remote evaluation's attributes, before any cohort is looked up for them.
  checkAttributes(
    {
      person_properties: body.person_properties,
      groups: body.groups,
      group_properties: body.group_properties,
    },
    "body",
  );
  if (body.disable_flags) return { details: [], errors: false };
  const entry = await sdkPayload(deps, project.id);
  const keys = keysOf(entry, body);
  const all = keys.length === Object.keys(entry.payload.features).length;
  const features = Object.fromEntries(keys.map((k) => [k, entry.payload.features[k]!]));
  const uses: CohortUse = all ? entry.allCohorts : new Map();
  if (!all) for (const k of keys) for (const [id, on] of entry.cohorts.get(k) ?? []) uses.set(id, on);
  // The groups the request names keep their stored traits (a server's `groupIdentify`).
  const stored = body.groups ? await postHogGroupTraits(deps.db, project, body.groups) : {};
  const attributes = attributesOf(body, stored);
  const groups = uses.size > 0 ? await savedGroupsFor(deps, project, uses, attributes) : undefined;
  // Lift's payloads have no prerequisites: the flags asked for are evaluated alone.
  const scoped = all ? entry : { ...entry, payload: { ...entry.payload, features } };
  const answer = (await remoteEvaluation(scoped, { attributes }, groups)) as {
    features?: Record<string, Evaluated>;
  };
  const evaluated = answer.features ?? {};
  let errors = false;
  const details: FlagDetailT[] = [];
  for (const k of keys) {
    const one = evaluated[k];
    // A flag without a value is left out, and the answer says some are missing.
    if (one?.defaultValue === undefined) errors = true;
    else details.push(detailOf(k, features[k]!, one));
  }
  return { details, errors };
}

/**
 * `POST /flags` and `/decide`: every flag asked for, for this person, in the format asked for,
 * serialised (the flags' keys are the answer's property names, so it is written as it is built).
 */
export async function evaluatePostHogFlags(
  deps: ServiceDeps,
  project: ProjectRef,
  body: PostHogFlagsBodyT,
  format: FlagsFormat,
  requestId: string,
): Promise<string> {
  const { details, errors } = await evaluate(deps, project, body);
  const evaluatedAt = Date.now();
  if (format === "flags") {
    const flags = Object.fromEntries(details.map((d) => [d.key, d]));
    return JSON.stringify({ flags, errorsWhileComputingFlags: errors, requestId, evaluatedAt });
  }
  const featureFlags = Object.fromEntries(details.map((d) => [d.key, d.variant ?? d.enabled]));
  const featureFlagPayloads = Object.fromEntries(
    details.flatMap((d) => (d.metadata.payload === undefined ? [] : [[d.key, d.metadata.payload]])),
  );
  return JSON.stringify({
    featureFlags,
    featureFlagPayloads,
    errorsWhileComputingFlags: errors,
    requestId,
    evaluatedAt,
  });
}

/**
 * PostHog's local-evaluation definitions of the project's flags: those PostHog's SDKs evaluate as
 * Lift does, and the others marked for the SDK to ask `/flags` (definitions.ts), serialised with an ETag of the bytes (the SDK polls with
 * If-None-Match). Ids are the flags' places in key order: PostHog's SDKs only report them.
 */
export async function postHogDefinitions(
  deps: ServiceDeps,
  project: ProjectRef,
): Promise<{ body: string; etag: string }> {
  const flags = (await listFlagRows(deps.db, project.id)).map(toFlag);
  flags.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const experiments = new Map(
    (await experimentsForFlags(deps.db, project.id, experimentIdsOfFlags(flags))).map((e) => [e.id, e]),
  );
  const definitions = flags.map(
    (f, i) => definitionOf(f, i + 1, experiments) ?? serverOnlyDefinition(f, i + 1),
  );
  const body = JSON.stringify({ flags: definitions, group_type_mapping: {}, cohorts: {} });
  return { body, etag: etagOf(body) };
}
