import { isDeepStrictEqual } from "node:util";
import type { FeatureDefinition } from "@growthbook/growthbook";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ServiceDeps } from "../../../platform/deps.js";
import { FormattedError, notFound } from "../../../platform/errors.js";
import { savedGroupsFor } from "../cohorts.js";
import { checkAttributes } from "../conditions.js";
import { remoteEvaluation } from "../evaluate.js";
import { etagOf, type PayloadEntry, sdkPayload } from "../sdk-cache.js";
import type { OfrepContextT, OfrepEvaluationT, OfrepFlagFailureT } from "./schema.js";

/**
 * OFREP's evaluations are Lift's remote evaluation (`remoteEvaluation`, what
 * `POST /api/eval/:clientKey` answers with, over the same cached payload and cohorts), so an
 * OpenFeature provider and a GrowthBook SDK with `remoteEval` get the same value for the same
 * person. What OFREP adds is read off that answer: the reason and an experiment's variant.
 */

/** A flag of the remote evaluation's answer: its value, and the tracking call of an experiment. */
interface Evaluated {
  defaultValue?: unknown;
  rules?: { tracks?: { experiment?: { key?: string }; result?: { key?: string } }[] }[];
}

/**
 * OpenFeature's context as GrowthBook's attributes: the context's fields as they are, and
 * `targetingKey` as `id` (what rollouts and experiments hash on) unless the context names `id`.
 */
export function attributesOf(context: OfrepContextT | undefined): Record<string, unknown> {
  const attributes: Record<string, unknown> = { ...context };
  if (typeof context?.targetingKey === "string" && attributes.id === undefined)
    attributes.id = context.targetingKey;
  return attributes;
}

function answerOf(
  key: string,
  definition: FeatureDefinition,
  evaluated: Evaluated | undefined,
): OfrepEvaluationT | OfrepFlagFailureT {
  if (evaluated?.defaultValue === undefined)
    return { key, errorCode: "GENERAL", errorDetails: `flag ${key} has no value` } as OfrepFlagFailureT;
  const value = evaluated.defaultValue;
  const track = evaluated.rules?.[0]?.tracks?.[0];
  if (track?.result?.key !== undefined) {
    const experimentId = track.experiment?.key;
    return {
      key,
      value,
      reason: "SPLIT",
      variant: track.result.key,
      metadata: experimentId ? { experimentId } : {},
    } satisfies OfrepEvaluationT;
  }
  const reason = !definition.rules?.length
    ? "STATIC"
    : isDeepStrictEqual(value, definition.defaultValue)
      ? "DEFAULT"
      : "TARGETING_MATCH";
  return { key, value, reason, metadata: {} } satisfies OfrepEvaluationT;
}

/** Remote evaluation of one flag (`only`) or of every flag, with the cohorts they test. */
async function evaluate(
  deps: ServiceDeps,
  project: ProjectRef,
  entry: PayloadEntry,
  only: string | null,
  attributes: Record<string, unknown>,
) {
  const uses = only ? entry.cohorts.get(only) : entry.allCohorts;
  const groups = uses && uses.size > 0 ? await savedGroupsFor(deps, project, uses, attributes) : undefined;
  // One flag is evaluated alone: Lift's payloads have no prerequisites, so a flag's value depends on
  // its own definition only, and a single evaluation does not cost the whole payload's.
  const scoped = only
    ? { ...entry, payload: { ...entry.payload, features: { [only]: entry.payload.features[only]! } } }
    : entry;
  const answer = (await remoteEvaluation(scoped, { attributes }, groups)) as {
    features?: Record<string, Evaluated>;
  };
  const features = answer.features ?? {};
  return (only ? [only] : Object.keys(entry.payload.features)).map((k) =>
    answerOf(k, entry.payload.features[k]!, features[k]),
  );
}

/** `POST /ofrep/v1/evaluate/flags/:key`: the flag's value for this context, or 404 FLAG_NOT_FOUND. */
export async function evaluateOfrepFlag(
  deps: ServiceDeps,
  project: ProjectRef,
  key: string,
  context: OfrepContextT | undefined,
) {
  const attributes = attributesOf(context);
  checkAttributes(attributes, "body.context");
  const entry = await sdkPayload(deps, project.id);
  if (!Object.hasOwn(entry.payload.features, key)) throw notFound("flag", key);
  const answer = (await evaluate(deps, project, entry, key, attributes))[0]!;
  if ("errorCode" in answer) throw new FormattedError(500, answer.errorCode, answer.errorDetails);
  return answer;
}

/**
 * `POST /ofrep/v1/evaluate/flags`: every flag's value for this context, serialised, with an ETag of
 * those bytes. The ETag is of the answer, not of the flags: a cohort's membership can change the
 * answer while the flags stay the same, and a change that leaves this person's values alone
 * changes nothing they need.
 */
export async function evaluateOfrepFlags(
  deps: ServiceDeps,
  project: ProjectRef,
  context: OfrepContextT | undefined,
): Promise<{ body: string; etag: string }> {
  const attributes = attributesOf(context);
  checkAttributes(attributes, "body.context");
  const entry = await sdkPayload(deps, project.id);
  const flags = await evaluate(deps, project, entry, null, attributes);
  const body = JSON.stringify({ flags });
  return { body, etag: etagOf(body) };
}
