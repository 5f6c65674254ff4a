import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { X_ERROR } from "../../platform/validation.js";

// ---- limits (docs/flags.md "Limits") ----
export const MAX_RULES = 50;
export const MAX_TAGS = 20;
export const MAX_VARIATIONS = 20;
/** A value (default or a rule's) as JSON. */
export const MAX_VALUE_BYTES = 16 * 1024;
/** The flags one project may hold: every SDK downloads all of them. */
export const MAX_FLAGS_PER_PROJECT = 1000;
/** Attributes sent for an evaluation: the body cap of the evaluate and remote-eval routes. */
export const MAX_EVAL_BODY_BYTES = 64 * 1024;

const lit = <T extends string>(values: readonly T[], opts: { description?: string } = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    opts,
  );

export const VALUE_TYPES = ["boolean", "string", "number", "json"] as const;
export const ValueType = lit(VALUE_TYPES, {
  description: "json values are objects or arrays",
});
export const HASHINGS = ["growthbook", "posthog"] as const;
export const Hashing = lit(HASHINGS, {
  description:
    "how rollouts place users: growthbook (FNV-1a, the default) or posthog (SHA-1 of " +
    '"<flag key>.<id>", as PostHog does; such a flag is served by remote evaluation only)',
});
export const Value = Type.Unknown({ description: "a value of the flag's valueType" });

export const FlagKey = Type.String({
  pattern: "^[a-z0-9][a-z0-9_.-]{0,99}$",
  [X_ERROR]: "must be 1–100 characters of a-z, 0-9, _ . - starting with a letter or digit",
});
const RuleId = Type.String({
  pattern: "^[A-Za-z0-9_-]{1,64}$",
  [X_ERROR]: "must be 1–64 characters of A-Z, a-z, 0-9, _ -",
});
export const Condition = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      "GrowthBook targeting condition (MongoDB-style) over the SDK's attributes. Operators: $eq $ne " +
      "$in $nin $ini $nini $all $alli $gt $gte $lt $lte $exists $type $size $elemMatch $not $and " +
      "$or $nor and the version comparisons $veq $vne $vgt $vgte $vlt $vlte. Regex operators are " +
      "refused; at most 8 levels deep and 8 KiB as JSON.",
  },
);

const ruleFields = <T extends TSchema>(id: T) => ({ id, condition: Type.Optional(Condition) });
const forceFields = { type: Type.Literal("force"), value: Value };
const rolloutFields = {
  type: Type.Literal("rollout"),
  value: Value,
  coverage: Type.Number({ minimum: 0, maximum: 1, description: "share of matching users, 0..1" }),
  hashAttribute: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "attribute users are hashed on; default id" }),
  ),
};
const experimentFields = {
  type: Type.Literal("experiment"),
  experimentId: Type.String({ minLength: 1, maxLength: 100 }),
  variations: Type.Array(Value, {
    minItems: 2,
    maxItems: MAX_VARIATIONS,
    description: "one value per variant of the experiment, in its variant order",
  }),
};
const closed = { additionalProperties: false } as const;

const ForceRuleIn = Type.Object({ ...ruleFields(Type.Optional(RuleId)), ...forceFields }, closed);
const RolloutRuleIn = Type.Object({ ...ruleFields(Type.Optional(RuleId)), ...rolloutFields }, closed);
const ExperimentRuleIn = Type.Object({ ...ruleFields(Type.Optional(RuleId)), ...experimentFields }, closed);
/** A rule as sent; a 400 names the field of the branch its `type` names (platform/validation.ts). */
export const RuleIn = Type.Union([ForceRuleIn, RolloutRuleIn, ExperimentRuleIn]);
export type RuleInT = Static<typeof RuleIn>;

export const ForceRule = Type.Object({ ...ruleFields(RuleId), ...forceFields });
export const RolloutRule = Type.Object({ ...ruleFields(RuleId), ...rolloutFields });
export const ExperimentRule = Type.Object({ ...ruleFields(RuleId), ...experimentFields });
export const Rule = Type.Union([ForceRule, RolloutRule, ExperimentRule], {
  description: "applied in order; the first that matches decides",
});
export type RuleT = Static<typeof Rule>;

const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: MAX_TAGS });
const Rules = Type.Array(RuleIn, { maxItems: MAX_RULES });
const Description = Type.String({ maxLength: 2000 });

export const CreateFlagBody = Type.Object(
  {
    key: FlagKey,
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    valueType: ValueType,
    defaultValue: Value,
    enabled: Type.Optional(Type.Boolean({ default: true })),
    rules: Type.Optional(Rules),
    tags: Type.Optional(Tags),
    hashing: Type.Optional(Hashing),
  },
  closed,
);
export type CreateFlag = Static<typeof CreateFlagBody>;

export const PatchFlagBody = Type.Object(
  {
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    valueType: Type.Optional(ValueType),
    defaultValue: Type.Optional(Value),
    enabled: Type.Optional(
      Type.Boolean({ description: "false is the kill switch: everyone gets defaultValue" }),
    ),
    rules: Type.Optional(Rules),
    tags: Type.Optional(Tags),
    hashing: Type.Optional(Hashing),
  },
  { ...closed, description: "any field but key; rules replace the whole list" },
);
export type PatchFlag = Static<typeof PatchFlagBody>;

export const Flag = Type.Object({
  id: Type.String(),
  key: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  valueType: ValueType,
  defaultValue: Value,
  enabled: Type.Boolean(),
  rules: Type.Array(Rule),
  tags: Type.Array(Type.String()),
  hashing: Hashing,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type FlagT = Static<typeof Flag>;

export const FlagKeyParams = Type.Object({ key: FlagKey });
export const RuleParams = Type.Object({ key: FlagKey, ruleId: RuleId });
export const ListFlagsQuery = Type.Object(
  {
    experimentId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "only flags with a rule on this experiment" }),
    ),
  },
  closed,
);
export const ShipBody = Type.Object(
  {
    variant: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "the variant to ship; default the experiment's winner",
      }),
    ),
  },
  closed,
);
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const Attributes = Type.Object(
  {},
  {
    additionalProperties: true,
    maxProperties: 1000,
    description: "the SDK's attributes (id is what rollouts and experiments hash on by default)",
  },
);
export const EvaluateBody = Type.Object({ attributes: Type.Optional(Attributes) }, closed);
export const SOURCES = ["defaultValue", "force", "rollout", "experiment"] as const;
export const Evaluation = Type.Object({
  value: Value,
  source: lit(SOURCES),
  ruleId: Type.Optional(Type.String({ description: "the rule that decided" })),
  variant: Type.Optional(Type.String({ description: "experiment rules: the variant's name" })),
});
export type EvaluationT = Static<typeof Evaluation>;

export const Actor = Type.Object({
  type: lit(["user", "apiKey"] as const),
  id: Type.String(),
  email: Type.Optional(Type.String()),
});
export type ActorT = Static<typeof Actor>;
export const HISTORY_ACTIONS = ["created", "updated", "deleted", "shipped"] as const;
export const HistoryEntry = Type.Object({
  id: Type.String(),
  action: lit(HISTORY_ACTIONS),
  actor: Actor,
  at: Type.String(),
  before: Type.Union([Flag, Type.Null()]),
  after: Type.Union([Flag, Type.Null()]),
});
export type HistoryEntryT = Static<typeof HistoryEntry>;

export const FlagSettings = Type.Object({
  remoteEvalOnly: Type.Boolean({
    description:
      "SDKs must use remote evaluation: GET /api/features/:clientKey is refused and the stream " +
      "only says features-updated, so no client sees the rules",
  }),
  targetingSalt: Type.String({
    description:
      "the salt of hashed targeting ids: a server SDK that fetches the payload with the secret key " +
      "tests cohorts locally on the attributes idHash and leadIdHash, each sha256(targetingSalt + id) " +
      "in hex (docs/flags.md). Keep it on servers",
  }),
});
export const PutFlagSettingsBody = Type.Object({ remoteEvalOnly: Type.Boolean() }, closed);

// ---- GrowthBook's SDK protocol ----
export const ClientKeyParams = Type.Object({
  clientKey: Type.String({ minLength: 1, maxLength: 200, description: "the project's public key svc_pk_…" }),
});
const FeatureDefinition = Type.Object(
  {
    defaultValue: Value,
    rules: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { additionalProperties: true },
);
export const FeaturesPayload = Type.Object(
  {
    status: Type.Literal(200),
    features: Type.Record(Type.String(), FeatureDefinition),
    dateUpdated: Type.String(),
  },
  { additionalProperties: true, description: "GrowthBook's SDK payload" },
);
export const RemoteEvalBody = Type.Object(
  {
    attributes: Type.Optional(Attributes),
    forcedVariations: Type.Optional(
      Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { maxProperties: 1000 }),
    ),
    forcedFeatures: Type.Optional(
      Type.Array(
        Type.Unsafe<[string, unknown]>({
          type: "array",
          prefixItems: [Type.String({ maxLength: 200 }), Value],
          minItems: 2,
          maxItems: 2,
          description: "[feature key, value]",
        }),
        { maxItems: 1000 },
      ),
    ),
    url: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { description: "what GrowthBook's SDKs send with remoteEval: true" },
);
export type RemoteEvalBodyT = Static<typeof RemoteEvalBody>;
