import { type Static, Type } from "@sinclair/typebox";
import { NoPayload, jobKind } from "../../platform/jobs/index.js";

export const GOAL_STATUSES = ["on_track", "at_risk", "behind", "completed"] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export const GoalStatusSchema = Type.Union(
  GOAL_STATUSES.map((s) => Type.Literal(s)) as [ReturnType<typeof Type.Literal<GoalStatus>>],
);

export const Goal = Type.Object({
  id: Type.String(),
  metric: Type.String(),
  target: Type.Number(),
  current: Type.Number(),
  deadline: Type.String(),
  status: GoalStatusSchema,
  statusSource: Type.Union([Type.Literal("manual"), Type.Literal("pace")]),
  description: Type.Union([Type.String(), Type.Null()]),
  unit: Type.Union([Type.String(), Type.Null()]),
  reachedAt: Type.Union([Type.String(), Type.Null()]),
  startDate: Type.String({
    description:
      "when counting starts (ISO 8601 date or date-time as given; a date is the start of that UTC day): `current` counts the metric from here; default `createdAt`",
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type GoalT = Static<typeof Goal>;

// A target of 0 or below is reached the moment the goal exists; it could never progress.
const Target = Type.Number({ exclusiveMinimum: 0, description: "value to reach; greater than 0" });

const StartDate = Type.String({
  minLength: 1,
  maxLength: 40,
  description:
    "count the metric from here (ISO 8601 date or date-time; a date is the start of that UTC day; before the deadline); default: the goal's creation",
});

export const CreateGoalBody = Type.Object(
  {
    metric: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "a built-in metric (visitors, leads, conversions, revenue, conversion_rate, signups, mrr, " +
        "payments_revenue, crm_revenue) or the name of one of the project's conversion goals",
    }),
    target: Target,
    deadline: Type.String({ minLength: 1, maxLength: 40 }),
    startDate: Type.Optional(StartDate),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    unit: Type.Optional(Type.String({ maxLength: 50 })),
  },
  { additionalProperties: false },
);
export type CreateGoal = Static<typeof CreateGoalBody>;

export const PatchGoalBody = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    target: Type.Optional(Target),
    deadline: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    startDate: Type.Optional(StartDate),
    status: Type.Optional(GoalStatusSchema),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    unit: Type.Optional(Type.String({ maxLength: 50 })),
  },
  { additionalProperties: false },
);
export type PatchGoal = Static<typeof PatchGoalBody>;

export const IdQuery = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

const Scalar = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]);
/** A condition on one `data` property: a literal (equality) or an operator object. */
export const Condition = Type.Union([
  Scalar,
  Type.Object(
    {
      eq: Type.Optional(Scalar),
      neq: Type.Optional(Scalar),
      gt: Type.Optional(Type.Number()),
      gte: Type.Optional(Type.Number()),
      lt: Type.Optional(Type.Number()),
      lte: Type.Optional(Type.Number()),
      contains: Type.Optional(Type.String({ maxLength: 1000 })),
      in: Type.Optional(Type.Array(Scalar, { maxItems: 100 })),
      exists: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
]);
export type ConditionT = Static<typeof Condition>;

export const RECOMPUTE_STATES = ["queued", "running", "done"] as const;
/** How far the recount of a goal's conversions from stored events got. */
export const ConversionRecompute = Type.Object(
  {
    state: Type.Union(RECOMPUTE_STATES.map((s) => Type.Literal(s))),
    processed: Type.Integer({ description: "stored events of the goal's event types read so far" }),
    progress: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "share of the stored events scanned (0–1)",
    }),
    startedAt: Type.Union([Type.String(), Type.Null()]),
    finishedAt: Type.Union([Type.String(), Type.Null()]),
  },
  {
    description:
      "the recount of this goal's conversions from stored events, run by a job after the goal is created or its eventType, urlPattern or conditions change; null for a goal never recounted (it counts the events received since its creation)",
  },
);
export type ConversionRecomputeT = Static<typeof ConversionRecompute>;

export const ConversionGoal = Type.Object({
  id: Type.String(),
  name: Type.String(),
  eventType: Type.String(),
  urlPattern: Type.Union([Type.String(), Type.Null()]),
  conditions: Type.Union([Type.Record(Type.String(), Condition), Type.Null()]),
  createdAt: Type.String(),
  recompute: Type.Union([ConversionRecompute, Type.Null()]),
});
export type ConversionGoalT = Static<typeof ConversionGoal>;

export const CreateConversionGoalBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    eventType: Type.String({ minLength: 1, maxLength: 200 }),
    urlPattern: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    conditions: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Condition, { maxProperties: 50 }),
    ),
  },
  { additionalProperties: false },
);
export type CreateConversionGoal = Static<typeof CreateConversionGoalBody>;

export const PatchConversionGoalBody = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    urlPattern: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()])),
    conditions: Type.Optional(
      Type.Union([
        Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Condition, { maxProperties: 50 }),
        Type.Null(),
      ]),
    ),
    recompute: Type.Optional(
      Type.Boolean({
        description:
          "true: recount the goal's conversions from stored events even though what it matches did not change (a goal created before its history was imported)",
      }),
    ),
  },
  { additionalProperties: false, minProperties: 2 },
);
export type PatchConversionGoal = Static<typeof PatchConversionGoalBody>;

// ---- jobs (goals/jobs.ts defines their handlers) ----
export const RECOMPUTE_JOB = jobKind(
  "goals.recompute",
  Type.Object({ projectId: Type.String(), workspaceId: Type.String() }),
);
/**
 * A conversion goal's recount from stored events (its hits, conversions and the counters that
 * depend on them). The goals module enqueues it when a goal is created, changes what it matches or
 * is deleted; the analytics module, which owns those tables, runs it.
 */
export const CONVERSION_RECOMPUTE_JOB = jobKind(
  "goals.conversion-recompute",
  Type.Object({
    projectId: Type.String(),
    workspaceId: Type.String(),
    goalId: Type.String(),
    revision: Type.Integer(),
  }),
);
export type ConversionRecomputeJob = Static<typeof CONVERSION_RECOMPUTE_JOB.payload>;
/** Pace changes with time even when no event arrives: every project's goals are refreshed hourly. */
export const REFRESH_ALL_JOB = jobKind("goals.refresh-all", NoPayload);
