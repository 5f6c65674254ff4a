import { type Static, Type } from "@sinclair/typebox";
import type { ErrorCode, ErrorFormat } from "../../../platform/errors.js";
import { Value } from "../schema.js";

/** OpenFeature Remote Evaluation Protocol v1 (docs/flags.md, "OpenFeature (OFREP)"). */

export const OFREP_ERROR_CODES = [
  "PARSE_ERROR",
  "TARGETING_KEY_MISSING",
  "INVALID_CONTEXT",
  "GENERAL",
  "FLAG_NOT_FOUND",
] as const;
export type OfrepErrorCode = (typeof OFREP_ERROR_CODES)[number];

/** The reasons Lift answers (OpenFeature's standard reasons). */
export const OFREP_REASONS = ["STATIC", "DEFAULT", "TARGETING_MATCH", "SPLIT"] as const;
export type OfrepReason = (typeof OFREP_REASONS)[number];

const lit = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );

export const OfrepContext = Type.Object(
  {
    targetingKey: Type.Optional(
      Type.String({
        maxLength: 200,
        description: "who is evaluated: GrowthBook's `id` attribute unless the context names `id`",
      }),
    ),
  },
  {
    additionalProperties: true,
    maxProperties: 1000,
    description: "OpenFeature's evaluation context; its other fields are targeting attributes",
  },
);
export const OfrepRequest = Type.Object(
  { context: Type.Optional(OfrepContext) },
  { description: "OFREP's evaluation request; unknown fields are ignored" },
);
export type OfrepRequestT = Static<typeof OfrepRequest>;
export type OfrepContextT = Static<typeof OfrepContext>;

export const OfrepFlagParams = Type.Object({
  // Any text: a key that cannot be a flag's is a flag not found (404), as OFREP expects.
  key: Type.String({ description: "the flag's key" }),
});

export const OfrepEvaluation = Type.Object({
  key: Type.String(),
  value: Value,
  reason: lit(
    OFREP_REASONS,
    "STATIC: the flag serves its default to everyone (no rule, or switched off); DEFAULT: no rule " +
      "matched; TARGETING_MATCH: a force, rollout or shipped rule served it; SPLIT: an experiment's variant",
  ),
  variant: Type.Optional(Type.String({ description: "SPLIT: the experiment variant's name" })),
  metadata: Type.Object(
    { experimentId: Type.Optional(Type.String()) },
    { additionalProperties: true, description: "SPLIT: the experiment's id (for exposures)" },
  ),
});
export type OfrepEvaluationT = Static<typeof OfrepEvaluation>;

const FlagFailure = Type.Object({
  key: Type.String(),
  errorCode: lit(OFREP_ERROR_CODES),
  errorDetails: Type.String(),
});
export type OfrepFlagFailureT = Static<typeof FlagFailure>;

export const OfrepBulk = Type.Object({
  flags: Type.Array(Type.Union([OfrepEvaluation, FlagFailure])),
});
export type OfrepBulkT = Static<typeof OfrepBulk>;

export const OfrepErrorBody = Type.Object(
  {
    key: Type.Optional(Type.String({ description: "single-flag evaluation: the flag asked for" })),
    errorCode: lit(OFREP_ERROR_CODES),
    errorDetails: Type.String({ description: "what went wrong; validation errors name the field" }),
    requestId: Type.String({ description: "the id of the request in the server's log" }),
  },
  { description: "The OFREP endpoints' error format (/ofrep/v1/…)" },
);

const STATUS: Record<OfrepErrorCode, number> = {
  PARSE_ERROR: 400,
  TARGETING_KEY_MISSING: 400,
  INVALID_CONTEXT: 400,
  FLAG_NOT_FOUND: 404,
  GENERAL: 500,
};

/** A general error (the body parser, validation, authentication, limits) in OFREP's codes. */
const FROM_GENERAL: Partial<Record<ErrorCode, OfrepErrorCode>> = {
  VALIDATION_ERROR: "INVALID_CONTEXT",
  NOT_FOUND: "FLAG_NOT_FOUND",
};

/**
 * OFREP's error body, named by its routes' `config.errorFormat`. The status stays the general
 * error's (401, 403, 413, 415, 429 keep theirs; the providers read those statuses, not the body).
 * A single flag's error names it: the provider reads a 400 or 404 only with its `key`.
 */
export const OFREP_ERRORS: ErrorFormat = {
  schemaName: "OfrepError",
  schema: OfrepErrorBody,
  statuses: STATUS,
  codeFor: (general) => FROM_GENERAL[general] ?? "GENERAL",
  body: (code, message, _extra, requestId, req) => {
    const key = (req.params as { key?: unknown } | undefined)?.key;
    return {
      ...(typeof key === "string" ? { key } : {}),
      errorCode: code,
      errorDetails: message,
      requestId,
    };
  },
};
