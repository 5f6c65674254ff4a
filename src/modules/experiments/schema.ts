import { type Static, Type } from "@sinclair/typebox";
import { NoPayload, jobKind } from "../../platform/jobs/index.js";

export const EXPERIMENT_STATUSES = ["draft", "running", "paused", "completed"] as const;
export const EXPERIMENT_MODES = ["ab", "multivariate", "bandit"] as const;
/** What shows the variants: the browser snippet on the pages of targetUrl, or a feature flag's experiment rule. */
export const EXPERIMENT_RUNNERS = ["snippet", "flag"] as const;
const lit = <T extends string>(values: readonly T[], opts: { description?: string } = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    opts,
  );

export const StatusSchema = lit(EXPERIMENT_STATUSES);
export const ModeSchema = lit(EXPERIMENT_MODES);
export const RunnerSchema = lit(EXPERIMENT_RUNNERS, {
  description:
    "what shows the variants: snippet (default) = the browser snippet, on the pages matching targetUrl; flag = a feature flag's experiment rule, in your code (no targetUrl)",
});

export const Variant = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    css: Type.Optional(Type.String({ maxLength: 20_000 })),
    js: Type.Optional(Type.String({ maxLength: 20_000 })),
  },
  { additionalProperties: false },
);
export type VariantT = Static<typeof Variant>;
const Variants = Type.Array(Variant, { minItems: 2, maxItems: 20 });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const GoalId = Type.String({ minLength: 1, maxLength: 100 });
const GoalIds = Type.Array(GoalId, { maxItems: 50 });
export const WORSE_WHEN = ["lower", "higher"] as const;
const Guardrail = Type.Object(
  {
    goal: GoalId,
    worseWhen: Type.Optional(
      lit(WORSE_WHEN, {
        description: "which change harms; default lower (a conversion goal counts outcomes you want)",
      }),
    ),
  },
  { additionalProperties: false },
);
export const MetricsInput = Type.Object(
  {
    primary: Type.Optional(
      Type.Union([GoalId, Type.Null()], {
        description: "the conversion goal the experiment is decided on; null = conversionGoalIds",
      }),
    ),
    secondary: Type.Optional(Type.Array(GoalId, { maxItems: 10, description: "reported, never decide" })),
    guardrails: Type.Optional(
      Type.Array(Type.Union([GoalId, Guardrail]), {
        maxItems: 10,
        description: "significantly worse for a variant blocks its automatic win",
      }),
    ),
  },
  { additionalProperties: false },
);
export type MetricsInputT = Static<typeof MetricsInput>;

export const CreateExperimentBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    targetUrl: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          "the pages the snippet runs the experiment on; required unless runner is flag, refused then",
      }),
    ),
    runner: Type.Optional(RunnerSchema),
    variants: Variants,
    trafficSplit: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    beliefId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    mode: Type.Optional(ModeSchema),
    /** Conversion goals counted by this experiment; omitted or null = all of the project's. */
    conversionGoalIds: Type.Optional(Type.Union([GoalIds, Type.Null()])),
    minSamplePerVariant: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
    metrics: Type.Optional(MetricsInput),
  },
  { additionalProperties: false },
);
export type CreateExperiment = Static<typeof CreateExperimentBody>;

export const PatchExperimentBody = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    status: Type.Optional(StatusSchema),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    targetUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    trafficSplit: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    variants: Type.Optional(Variants),
    beliefId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    conversionGoalIds: Type.Optional(Type.Union([GoalIds, Type.Null()])),
    minSamplePerVariant: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
    metrics: Type.Optional(MetricsInput),
  },
  { additionalProperties: false },
);
export type PatchExperiment = Static<typeof PatchExperimentBody>;

// A tuple in JSON Schema 2020-12 form (OpenAPI 3.1): TypeBox's Tuple emits the draft-07
// `items: [...]` + `additionalItems`, which a 3.1 document does not allow.
const Pair = Type.Unsafe<[number, number]>({
  type: "array",
  prefixItems: [Type.Number(), Type.Number()],
  minItems: 2,
  maxItems: 2,
  description: "[low, high]",
});
const Interval = Type.Union([Pair, Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);
export const VariantResult = Type.Object({
  name: Type.String(),
  exposures: Type.Integer(),
  conversions: Type.Integer(),
  conversionRate: Type.Number(),
  uplift: NullableNumber,
  upliftInterval: Interval,
  chanceToBeatControl: NullableNumber,
  pValue: NullableNumber,
  adjustedPValue: Type.Union([Type.Number(), Type.Null()], {
    description: "pValue adjusted for the number of variants compared with control (Holm–Bonferroni)",
  }),
  sequential: Type.Union(
    [
      Type.Object({
        chanceToBeatControl: Type.Number({
          description: "1 − p/2 in the estimate's favour, from the always-valid p-value",
        }),
        interval: Type.Union([Pair, Type.Null()], {
          description: "confidence sequence of the relative uplift",
        }),
        pValue: Type.Number({ description: "always-valid p-value, Holm-adjusted across challengers" }),
        decided: Type.Boolean(),
      }),
      Type.Null(),
    ],
    { description: "the sequential test that completes experiments; null for the control" },
  ),
  revenuePerVisitor: Type.Object({
    mean: Type.Number({
      description: "revenue (data.revenue) of conversion-goal events after exposure, per exposed visitor",
    }),
    interval: Type.Union([Pair, Type.Null()], {
      description: "Welch 95% interval of the difference vs control",
    }),
    relativeInterval: Type.Union([Pair, Type.Null()], {
      description: "delta-method 95% interval of the relative difference vs control",
    }),
  }),
});
export const DECISION_METHODS = ["sequential", "fixed-horizon", "bandit", "manual"] as const;
const GuardrailResult = Type.Object({
  goal: Type.String(),
  variant: Type.String(),
  status: lit(["ok", "warning", "failing"] as const),
});
const SecondaryResult = Type.Object({
  goal: Type.String(),
  variants: Type.Array(
    Type.Object({
      name: Type.String(),
      conversions: Type.Integer(),
      conversionRate: Type.Number(),
      uplift: NullableNumber,
      pValue: NullableNumber,
    }),
  ),
});
export const VERDICT_STATES = [
  "no_data",
  "srm",
  "collecting",
  "leading",
  "significant",
  "won",
  "no_winner",
  "bandit",
] as const;
const Verdict = Type.Object(
  {
    state: lit(VERDICT_STATES, {
      description:
        "no_data (no exposure yet), srm (sample ratio mismatch: no verdict), collecting (no difference or no conversions yet), leading (a variant is ahead, not significant), significant (the sequential test decided; completes when the minimum sample is met), won / no_winner (completed), bandit",
    }),
    text: Type.String({ description: "the verdict in plain words, as the dashboard shows it" }),
    leader: Type.Union([Type.String(), Type.Null()], {
      description: "the variant ahead (the control when every variant does worse); null without a difference",
    }),
    confidence: Type.Number({
      description:
        "the one confidence figure to show: 1 − the sequential test's always-valid p-value (Holm-adjusted) of the clearest comparison with the control, so 95% is where it decides; for a bandit, the leader's probability of being best. The spec's top-level `confidence` stays the Bayesian chance of the best variant (a single-look figure)",
    }),
    moreVisitorsPerVariant: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "visitors per variant still needed: to reach the sequential test's decision if the rates seen so far hold (leading), or the minimum sample (significant); null when it cannot be estimated",
    }),
  },
  { description: "the outcome in plain words, from the sequential test (docs/decisions/experiments.md)" },
);

export const Results = Type.Object({
  control: Type.String(),
  variants: Type.Array(VariantResult),
  totalExposures: Type.Integer(),
  totalConversions: Type.Integer(),
  srm: Type.Object({ checked: Type.Boolean(), pValue: NullableNumber, mismatch: Type.Boolean() }),
  decision: Type.Object({
    method: lit(DECISION_METHODS, {
      description: "what decided (or, while running, what will): see docs/decisions/experiments.md",
    }),
    decidedAt: Type.Union([Type.String(), Type.Null()]),
    winner: Type.Union([Type.String(), Type.Null()]),
  }),
  guardrails: Type.Array(GuardrailResult),
  secondary: Type.Array(SecondaryResult),
  verdict: Verdict,
  bandit: Type.Union([
    Type.Object({
      note: Type.String(),
      probabilityBest: Type.Array(Type.Number(), { description: "per variant, from the current weights" }),
      weightsHistory: Type.Array(Type.Object({ at: Type.String(), weights: Type.Array(Type.Number()) }), {
        description: "the newest allocations, oldest first",
      }),
    }),
    Type.Null(),
  ]),
});
const MetricsOut = Type.Object({
  primary: Type.Union([Type.String(), Type.Null()]),
  secondary: Type.Array(Type.String()),
  guardrails: Type.Array(Type.Object({ goal: Type.String(), worseWhen: lit(WORSE_WHEN) })),
});

export const Experiment = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: StatusSchema,
  targetUrl: Type.Union([Type.String(), Type.Null()], {
    description: "the pages the snippet runs it on; null when a feature flag runs it (runner flag)",
  }),
  runner: RunnerSchema,
  trafficSplit: Type.Number(),
  variants: Type.Array(Variant),
  results: Results,
  confidence: Type.Number({
    description:
      "the spec's statistical confidence: the Bayesian chance that the best variant beats the control (0 before any exposure). A single-look figure; the verdict's `results.verdict.confidence` is the sequential test's, which decides",
  }),
  beliefId: Type.Union([Type.String(), Type.Null()]),
  mode: ModeSchema,
  weights: Type.Array(Type.Number()),
  conversionGoalIds: Type.Union([Type.Array(Type.String()), Type.Null()]),
  metrics: MetricsOut,
  minSamplePerVariant: Type.Integer(),
  winner: Type.Union([Type.String(), Type.Null()]),
  completionReason: Type.Union([Type.String(), Type.Null()]),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  completedAt: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type ExperimentT = Static<typeof Experiment>;

export const ListQuery = Type.Object(
  { status: Type.Optional(StatusSchema) },
  { additionalProperties: false },
);
export const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const KeyQuery = Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) });

export const ActiveExperiment = Type.Object({
  id: Type.String(),
  targetUrl: Type.String(),
  mode: ModeSchema,
  trafficSplit: Type.Number(),
  weights: Type.Array(Type.Number()),
  variants: Type.Array(Variant),
});
export type ActiveExperimentT = Static<typeof ActiveExperiment>;

export const WeightsHistory = Type.Object({
  experimentId: Type.String(),
  /** Variant names, in the order of every point's weights. */
  variants: Type.Array(Type.String()),
  points: Type.Array(
    Type.Object({
      at: Type.String({ description: "when this allocation took effect (ISO 8601)" }),
      weights: Type.Array(Type.Number(), { description: "traffic fractions per variant, summing to 1" }),
    }),
    { description: "oldest first; recorded when a bandit starts and whenever its weights are recomputed" },
  ),
});

// ---- jobs (experiments/jobs.ts defines their handlers) ----
export const BANDIT_JOB = jobKind("experiments.bandit-reweight", NoPayload);
export const EVIDENCE_JOB = jobKind(
  "experiments.append-evidence",
  Type.Object({ experimentId: Type.String() }),
);
