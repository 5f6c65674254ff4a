import { type Static, Type } from "@sinclair/typebox";
import { NoPayload, jobKind } from "../../platform/jobs/index.js";
import { TrendsBody } from "../analytics/service.js";

/** Alerts: a condition on one trend series, checked on a schedule (docs/alerts.md). */

const closed = { additionalProperties: false } as const;

export const ALERT_INTERVALS = ["day", "week"] as const;

/** The trends body of one series: the series, its interval, and the filter and goal every report takes. */
export const AlertQuery = Type.Object(
  {
    series: Type.Array(TrendsBody.properties.series.items, {
      minItems: 1,
      maxItems: 1,
      description: "exactly one series, as in POST /api/analytics/trends",
    }),
    interval: Type.Union(
      ALERT_INTERVALS.map((i) => Type.Literal(i)),
      { description: "the bucket checked: a day (UTC) or a week (from Monday, UTC)" },
    ),
    filter: TrendsBody.properties.filter,
    goal: TrendsBody.properties.goal,
  },
  { ...closed, description: "the trend whose latest complete bucket is checked; no breakdown" },
);
export type AlertQueryT = Static<typeof AlertQuery>;

const Threshold = (kind: "above" | "below") =>
  Type.Object(
    {
      kind: Type.Literal(kind),
      value: Type.Number({ description: `fires when the latest complete bucket is ${kind} this value` }),
    },
    closed,
  );

export const AlertCondition = Type.Union([
  Threshold("above"),
  Threshold("below"),
  Type.Object(
    {
      kind: Type.Literal("change"),
      direction: Type.Union([Type.Literal("up"), Type.Literal("down"), Type.Literal("either")]),
      percent: Type.Number({
        exclusiveMinimum: 0,
        maximum: 100_000,
        description: "fires when the latest complete bucket moved at least this much from the one before",
      }),
    },
    closed,
  ),
]);
export type AlertConditionT = Static<typeof AlertCondition>;

export const AlertNotify = Type.Object(
  {
    emails: Type.Array(Type.String({ minLength: 3, maxLength: 254 }), {
      maxItems: 50,
      uniqueItems: true,
      description: "members of the workspace to mail",
    }),
    webhook: Type.Boolean({
      description: "also emit `alert.fired` to the workspace's webhook subscriptions",
    }),
  },
  closed,
);
export type AlertNotifyT = Static<typeof AlertNotify>;

const Name = Type.String({ minLength: 1, maxLength: 200 });

export const CreateAlertBody = Type.Object(
  {
    name: Name,
    query: AlertQuery,
    condition: AlertCondition,
    notify: AlertNotify,
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  closed,
);
export type CreateAlertBodyT = Static<typeof CreateAlertBody>;

export const PatchAlertBody = Type.Object(
  {
    name: Type.Optional(Name),
    query: Type.Optional(AlertQuery),
    condition: Type.Optional(AlertCondition),
    notify: Type.Optional(AlertNotify),
    enabled: Type.Optional(Type.Boolean()),
  },
  { ...closed, minProperties: 1 },
);
export type PatchAlertBodyT = Static<typeof PatchAlertBody>;

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

export const Alert = Type.Object({
  id: Type.String(),
  name: Type.String(),
  query: AlertQuery,
  condition: AlertCondition,
  notify: AlertNotify,
  enabled: Type.Boolean(),
  state: Type.Object({
    lastBucket: Type.Union([Type.String(), Type.Null()], { description: "the last bucket checked" }),
    crossed: Type.Union([Type.Boolean(), Type.Null()], {
      description: "whether that bucket met the condition",
    }),
    lastValue: Nullable(Type.Number()),
    checkedAt: Type.Union([Type.String(), Type.Null()]),
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type AlertT = Static<typeof Alert>;

export const AlertFiring = Type.Object({
  id: Type.String(),
  alertId: Type.String(),
  bucket: Type.String({ description: "the start (ISO, UTC) of the bucket that crossed" }),
  value: Nullable(Type.Number()),
  previousValue: Nullable(Type.Number()),
  condition: AlertCondition,
  email: Type.Array(
    Type.Object({
      to: Type.String(),
      status: Type.String({ description: "sent, queued, or the refusal's code (suppressed, send_failed …)" }),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: "each mail's outcome; empty until the notification ran" },
  ),
  firedAt: Type.String(),
});
export type AlertFiringT = Static<typeof AlertFiring>;

export const Evaluation = Type.Object({
  bucket: Type.String({ description: "the latest complete bucket (ISO start)" }),
  value: Nullable(Type.Number()),
  previousBucket: Type.String(),
  previousValue: Nullable(Type.Number()),
  crossed: Type.Boolean({ description: "the bucket meets the condition" }),
  fired: Type.Boolean({ description: "this check recorded a firing (a new crossing)" }),
  firing: Type.Union([AlertFiring, Type.Null()]),
});
export type EvaluationT = Static<typeof Evaluation>;

const Cursor = Type.Optional(Type.String({ maxLength: 400, description: "nextCursor of the previous page" }));
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 }));
export const ListQuery = Type.Object({ limit: Limit, cursor: Cursor }, closed);
export type ListQueryT = Static<typeof ListQuery>;
export const AlertPage = Type.Object({
  items: Type.Array(Alert, { description: "newest first" }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const FiringPage = Type.Object({
  items: Type.Array(AlertFiring, { description: "newest first" }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

/** The scheduled sweep: checks every enabled alert. */
export const CHECK_ALL_JOB = jobKind("alerts.check-all", NoPayload);
/** Mails a firing's recipients (the webhook leaves through the service-event outbox). */
export const NOTIFY_JOB = jobKind("alerts.notify", Type.Object({ firingId: Type.String() }));
