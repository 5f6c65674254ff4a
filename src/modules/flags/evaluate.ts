import { GrowthBookClient, type SavedGroupsValues } from "@growthbook/growthbook";
import { evaluateFeatures } from "@growthbook/proxy-eval";
import { checkAttributes } from "./conditions.js";
import { withPostHogHashes } from "./hashing.js";
import { ruleKey } from "./payload.js";
import type { EvaluationT, RemoteEvalBodyT } from "./schema.js";
import type { PayloadEntry } from "./sdk-cache.js";

/**
 * Evaluation on the server is GrowthBook's own, over the very payload the SDKs download (DESIGN.md:
 * one truth for SDKs and server): `GrowthBookClient.evalFeature` for the evaluate endpoint and
 * `@growthbook/proxy-eval` (what GrowthBook's proxy runs) for remote evaluation. Every evaluation
 * (remote evaluation, OFREP, PostHog's flags, the evaluate endpoint) passes through these two, which
 * add the PostHog hashes of PostHog-hashed flags to the attributes (hashing.ts).
 */

/**
 * The answer of `POST /api/flags/:key/evaluate`; `attributes` must have passed checkAttributes.
 * `savedGroups`: this evaluation's cohorts (cohorts.ts), when the flag tests any — GrowthBook
 * reads saved groups from its client, so such an evaluation gets a client of its own.
 */
export function evaluateEntry(
  entry: PayloadEntry,
  key: string,
  attributes: Record<string, unknown>,
  savedGroups?: SavedGroupsValues,
): EvaluationT {
  const client = savedGroups
    ? new GrowthBookClient().initSync({ payload: { ...entry.payload, savedGroups } })
    : entry.client();
  const r = client.evalFeature(key, {
    attributes: withPostHogHashes(entry.postHogSlots, { [key]: true }, attributes),
  });
  const meta = r.ruleId ? entry.rules.get(ruleKey(key, r.ruleId)) : undefined;
  if ((r.source === "force" || r.source === "experiment") && meta) {
    const variant = r.source === "experiment" ? r.experimentResult?.key : meta.variant;
    return {
      value: r.value,
      source: meta.type,
      ruleId: r.ruleId,
      ...(variant !== undefined ? { variant } : {}),
    };
  }
  return { value: r.value, source: "defaultValue" };
}

/**
 * GrowthBook's remote evaluation: the payload reduced to each feature's value for these
 * attributes (a matched experiment as a forced value plus the tracking call the SDK then makes),
 * so the client never sees a rule. The saved groups it evaluated with stay on the server:
 * `evaluateFeatures` copies them into its answer, and a group holding the caller's id answers
 * "is this person in the cohort" for whatever id the caller names.
 */
export async function remoteEvaluation(
  entry: PayloadEntry,
  body: RemoteEvalBodyT,
  savedGroups?: SavedGroupsValues,
): Promise<unknown> {
  checkAttributes(body.attributes, "body.attributes");
  const { savedGroups: _kept, ...answer } = (await evaluateFeatures({
    payload: savedGroups ? { ...entry.payload, savedGroups } : entry.payload,
    attributes: withPostHogHashes(entry.postHogSlots, entry.payload.features, body.attributes ?? {}),
    forcedVariations: body.forcedVariations ?? {},
    forcedFeatures: new Map(body.forcedFeatures ?? []),
    url: body.url ?? "",
  })) as Record<string, unknown>;
  return answer;
}
