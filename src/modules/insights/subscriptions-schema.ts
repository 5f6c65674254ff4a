import { type Static, Type } from "@sinclair/typebox";
import { NoPayload, jobKind } from "../../platform/jobs/index.js";

/** Subscriptions: a dashboard or an insight mailed on a schedule (docs/dashboard.md, "Subscriptions"). */

const closed = { additionalProperties: false } as const;

export const FREQUENCIES = ["daily", "weekly", "monthly"] as const;
export type FrequencyT = (typeof FREQUENCIES)[number];
export const WEEKDAYS = [
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
] as const;
export type WeekdayT = (typeof WEEKDAYS)[number];
/** Recipients per subscription at most: a digest for a team, not a mailing list. */
export const MAX_RECIPIENTS = 50;

const Id = Type.String({ minLength: 1, maxLength: 100 });
export const SubscriptionTarget = Type.Union(
  [Type.Object({ dashboardId: Id }, closed), Type.Object({ insightId: Id }, closed)],
  { description: "what is mailed: a dashboard (every tile) or one saved insight" },
);
export type SubscriptionTargetT = Static<typeof SubscriptionTarget>;

const Frequency = Type.Union(
  FREQUENCIES.map((f) => Type.Literal(f)),
  { description: "daily; weekly on `weekday`; monthly on `dayOfMonth`" },
);
const Weekday = Type.Union(
  WEEKDAYS.map((d) => Type.Literal(d)),
  { description: "weekly only: the day (UTC)" },
);
const DayOfMonth = Type.Integer({
  minimum: 1,
  maximum: 28,
  description: "monthly only: the day of the month (UTC; 1–28, so every month has it); default 1",
});
const Hour = Type.Integer({ minimum: 0, maximum: 23, description: "the hour (UTC) the mail leaves" });
const Emails = Type.Array(Type.String({ minLength: 3, maxLength: 254 }), {
  minItems: 1,
  maxItems: MAX_RECIPIENTS,
  uniqueItems: true,
  description: `members of the workspace to mail (1–${MAX_RECIPIENTS})`,
});
const Name = Type.String({ minLength: 1, maxLength: 200 });

export const CreateSubscriptionBody = Type.Object(
  {
    name: Type.Optional(
      Type.Union([Name, Type.Null()], { description: "default: the dashboard's or insight's" }),
    ),
    target: SubscriptionTarget,
    frequency: Frequency,
    weekday: Type.Optional(Weekday),
    dayOfMonth: Type.Optional(DayOfMonth),
    hour: Hour,
    emails: Emails,
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  closed,
);
export type CreateSubscriptionBodyT = Static<typeof CreateSubscriptionBody>;

export const PatchSubscriptionBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Name, Type.Null()])),
    frequency: Type.Optional(Frequency),
    weekday: Type.Optional(Type.Union([Weekday, Type.Null()])),
    dayOfMonth: Type.Optional(Type.Union([DayOfMonth, Type.Null()])),
    hour: Type.Optional(Hour),
    emails: Type.Optional(Emails),
    enabled: Type.Optional(Type.Boolean()),
  },
  { ...closed, minProperties: 1, description: "the target cannot change; a new schedule starts from now" },
);
export type PatchSubscriptionBodyT = Static<typeof PatchSubscriptionBody>;

export const Subscription = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  target: SubscriptionTarget,
  frequency: Frequency,
  weekday: Type.Union([Weekday, Type.Null()]),
  dayOfMonth: Type.Union([Type.Integer(), Type.Null()]),
  hour: Type.Integer(),
  emails: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  lastPeriod: Type.Union([Type.String(), Type.Null()], {
    description: "the scheduled moment (ISO, UTC) of the last send",
  }),
  nextAt: Type.Union([Type.String(), Type.Null()], {
    description: "the next scheduled moment (ISO, UTC); null while disabled",
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type SubscriptionT = Static<typeof Subscription>;

export const SubscriptionSend = Type.Object({
  id: Type.String(),
  subscriptionId: Type.String(),
  period: Type.String({
    description: "the scheduled moment (ISO, UTC) this send is for; one send per moment",
  }),
  email: Type.Array(
    Type.Object({
      to: Type.String(),
      status: Type.String({ description: "sent, queued, or the refusal's code (suppressed, send_failed …)" }),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: "each mail's outcome; empty until the send job ran" },
  ),
  error: Type.Union([Type.String(), Type.Null()], {
    description: "why nothing could be mailed (the dashboard or insight was deleted)",
  }),
  createdAt: Type.String(),
});
export type SubscriptionSendT = Static<typeof SubscriptionSend>;

const Cursor = Type.Optional(Type.String({ maxLength: 400, description: "nextCursor of the previous page" }));
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 }));
export const ListSubscriptionsQuery = Type.Object(
  {
    dashboardId: Type.Optional(Id),
    insightId: Type.Optional(Id),
    limit: Limit,
    cursor: Cursor,
  },
  closed,
);
export type ListSubscriptionsQueryT = Static<typeof ListSubscriptionsQuery>;
export const ListSendsQuery = Type.Object({ limit: Limit, cursor: Cursor }, closed);
export const SubscriptionPage = Type.Object({
  items: Type.Array(Subscription, { description: "newest first" }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const SendPage = Type.Object({
  items: Type.Array(SubscriptionSend, { description: "newest first" }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

/** The scheduled sweep: claims each subscription's due period and queues its send. */
export const SUBSCRIPTIONS_CHECK_JOB = jobKind("subscriptions.check-all", NoPayload);
/** Computes a claimed send's tiles and mails them. */
export const SUBSCRIPTION_SEND_JOB = jobKind("subscriptions.send", Type.Object({ sendId: Type.String() }));
