import { type Static, Type } from "@sinclair/typebox";
import { FILTER_OPS, FilterCondition } from "../schema.js";

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const PROPERTY = '^[^"\\\\]{1,100}$';

/** Did (or did not) do an event, with property conditions, at least N times in a window. */
export const EventCondition = Type.Object(
  {
    type: Type.Literal("event"),
    did: Type.Optional(Type.Boolean({ default: true, description: "false: did not do it in the window" })),
    event: Type.String({ minLength: 1, maxLength: 200, description: "the event type" }),
    where: Type.Optional(
      Type.Array(FilterCondition, {
        maxItems: 5,
        description: "conditions on the event itself (keys page, country, event.<property>)",
      }),
    ),
    atLeast: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1, description: "times" })),
    withinDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 365,
        description: "the last N UTC days, today included (default 30 unless from/to are given)",
      }),
    ),
    from: Type.Optional(Type.String({ maxLength: 40, description: "a date window instead (YYYY-MM-DD)" })),
    to: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);

/** A lead property condition (a visitor with no lead has no properties). */
export const PropertyCondition = Type.Object(
  {
    type: Type.Literal("property"),
    property: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: PROPERTY,
      "x-error": "must be 1–100 characters without quotes or backslashes",
    }),
    op: Type.Union(FILTER_OPS.map((o) => Type.Literal(o))),
    value: FilterCondition.properties.value,
  },
  { additionalProperties: false },
);

export const CohortDefinition = Type.Object(
  {
    conditions: Type.Array(Type.Union([EventCondition, PropertyCondition]), {
      minItems: 1,
      maxItems: 10,
      description: "all must hold for a person (a lead's visitors together, else a visitor)",
    }),
  },
  { additionalProperties: false },
);
export type CohortDefinitionT = Static<typeof CohortDefinition>;

const trustBrowserProperties = (extra: { default?: boolean } = {}) =>
  Type.Boolean({
    ...extra,
    description:
      "whether flag targeting counts lead properties written from a browser with the public key " +
      "(anyone can send it). false: only properties set by your servers (a secret key, a connector, " +
      "an incoming webhook) count, a browser-written one as missing. Reports count every property.",
  });
export type EventConditionT = Static<typeof EventCondition>;

export const CreateCohortBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    definition: CohortDefinition,
    trustBrowserProperties: Type.Optional(trustBrowserProperties({ default: false })),
  },
  { additionalProperties: false },
);
export type CreateCohortBodyT = Static<typeof CreateCohortBody>;

export const PatchCohortBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    definition: Type.Optional(CohortDefinition),
    trustBrowserProperties: Type.Optional(trustBrowserProperties()),
  },
  { additionalProperties: false },
);
export type PatchCohortBodyT = Static<typeof PatchCohortBody>;

export const Cohort = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  definition: CohortDefinition,
  trustBrowserProperties: trustBrowserProperties(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type CohortT = Static<typeof Cohort>;

export const CohortParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const CohortCount = Type.Object({
  count: Type.Integer({ description: "people in the cohort now" }),
  computedAt: Type.String(),
});

export const PreviewBody = Type.Object({ definition: CohortDefinition }, { additionalProperties: false });

export const MembersQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 400, description: "nextCursor of the previous page" })),
});

export const CohortMembers = Type.Object({
  count: Type.Integer(),
  items: Type.Array(
    Type.Object({
      leadId: Nullable(Type.String({ description: "the person's lead" })),
      visitorId: Nullable(Type.String({ description: "an anonymous person's visitor id" })),
    }),
  ),
  nextCursor: Nullable(Type.String()),
});
