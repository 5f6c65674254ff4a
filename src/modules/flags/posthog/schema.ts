import { type Static, Type } from "@sinclair/typebox";

/** PostHog's flags API (`/flags`, `/decide`) over Lift's flags (docs/posthog.md, "Feature flags"). */

const Key = Type.String({ maxLength: 200, description: "the project's key: svc_pk_… (or svc_key_…)" });
const FlagKeys = Type.Array(Type.String({ maxLength: 200 }), {
  maxItems: 1000,
  description: "only these flags are evaluated and answered",
});

export const PostHogFlagsBody = Type.Object(
  {
    token: Type.Optional(Key),
    api_key: Type.Optional(Key),
    distinct_id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "who is evaluated: GrowthBook's `id` attribute (what rollouts and experiments hash on)",
    }),
    person_properties: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "targeting attributes, as they are" }),
    ),
    groups: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: Type.Union([Type.String({ maxLength: 200 }), Type.Number()]),
          maxProperties: 20,
          description: "group type → group key: the attribute `groups`",
        },
      ),
    ),
    group_properties: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: Type.Object({}, { additionalProperties: true }),
          maxProperties: 20,
          description: "group type → its properties: the attribute `groupProperties`",
        },
      ),
    ),
    flag_keys_to_evaluate: Type.Optional(FlagKeys),
    flag_keys: Type.Optional(FlagKeys),
    disable_flags: Type.Optional(Type.Boolean({ description: "true: no flag is evaluated" })),
  },
  {
    description:
      "posthog-js's and posthog-node's flags request (JSON, gzip or a base64 form); unknown fields are ignored",
  },
);
export type PostHogFlagsBodyT = Static<typeof PostHogFlagsBody>;

export const PostHogFlagsQuery = Type.Object(
  {
    v: Type.Optional(Type.String({ maxLength: 10, description: "the answer's version" })),
    compression: Type.Optional(Type.String({ maxLength: 20, description: "gzip-js, gzip or base64" })),
  },
  { additionalProperties: true, description: "the SDKs' other parameters (ver, _, ip, config) are ignored" },
);

const FlagDetail = Type.Object({
  key: Type.String(),
  enabled: Type.Boolean(),
  variant: Type.Optional(Type.String({ description: "a string flag's value" })),
  reason: Type.Object({
    code: Type.Union([Type.Literal("condition_match"), Type.Literal("no_condition_match")]),
    description: Type.String(),
  }),
  metadata: Type.Object({
    payload: Type.Optional(Type.String({ description: "a value other than a boolean, as JSON text" })),
  }),
});
export type FlagDetailT = Static<typeof FlagDetail>;

export const FlagsAnswer = Type.Object(
  {
    flags: Type.Record(Type.String(), FlagDetail),
    errorsWhileComputingFlags: Type.Boolean({ description: "true: a flag had no value and is left out" }),
    requestId: Type.String({ description: "the id of the request in the server's log" }),
    evaluatedAt: Type.Number({ description: "when the flags were evaluated, epoch ms" }),
  },
  { description: "/flags?v=2 (and /decide?v=4): each flag's detail" },
);

export const LegacyFlagsAnswer = Type.Object(
  {
    featureFlags: Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.String()])),
    featureFlagPayloads: Type.Record(Type.String(), Type.String()),
    errorsWhileComputingFlags: Type.Boolean({ description: "true: a flag had no value and is left out" }),
    requestId: Type.String({ description: "the id of the request in the server's log" }),
    evaluatedAt: Type.Number({ description: "when the flags were evaluated, epoch ms" }),
  },
  { description: "/decide?v=3 and /flags?v=1: values and payloads (JSON text)" },
);

export const DefinitionsQuery = Type.Object(
  {
    token: Type.Optional(
      Type.String({ maxLength: 200, description: "the SDK's project API key (not needed)" }),
    ),
    send_cohorts: Type.Optional(
      Type.String({ maxLength: 10, description: "cohorts are always sent (none)" }),
    ),
  },
  { additionalProperties: true },
);

const Definition = Type.Object(
  {
    id: Type.Integer(),
    key: Type.String(),
    name: Type.String(),
    active: Type.Boolean(),
    ensure_experience_continuity: Type.Optional(
      Type.Literal(true, { description: "the flag does not map: the SDK asks `/flags` for it" }),
    ),
    filters: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

export const DefinitionsAnswer = Type.Object(
  {
    flags: Type.Array(Definition, {
      description: "every flag: with its rules where PostHog's SDKs evaluate it as Lift does, else marked",
    }),
    group_type_mapping: Type.Record(Type.String(), Type.String()),
    cohorts: Type.Record(Type.String(), Type.Unknown()),
  },
  { description: 'PostHog\'s local-evaluation definitions (docs/posthog.md, "Local evaluation")' },
);
