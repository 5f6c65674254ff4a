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
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type GoalT = Static<typeof Goal>;

// A target of 0 or below is reached the moment the goal exists; it could never progress.
const Target = Type.Number({ exclusiveMinimum: 0, description: "value to reach; greater than 0" });

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

export const ConversionGoal = Type.Object({
  id: Type.String(),
  name: Type.String(),
  eventType: Type.String(),
  urlPattern: Type.Union([Type.String(), Type.Null()]),
  conditions: Type.Union([Type.Record(Type.String(), Condition), Type.Null()]),
  createdAt: Type.String(),
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
  },
  { additionalProperties: false, minProperties: 2 },
);
export type PatchConversionGoal = Static<typeof PatchConversionGoalBody>;

// ---- jobs (goals/jobs.ts defines their handlers) ----
export const RECOMPUTE_JOB = jobKind(
  "goals.recompute",
  Type.Object({ projectId: Type.String(), workspaceId: Type.String() }),
);
/** Pace changes with time even when no event arrives: every project's goals are refreshed hourly. */
export const REFRESH_ALL_JOB = jobKind("goals.refresh-all", NoPayload);
