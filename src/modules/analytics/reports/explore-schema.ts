import { type Static, Type } from "@sinclair/typebox";
import { Filter, periodFields } from "../schema.js";

/** POST /api/analytics/paths. */
export const PathsBody = Type.Object(
  {
    start: Type.Object(
      {
        event: Type.String({
          minLength: 1,
          maxLength: 200,
          default: "pageview",
          description: "the event type the paths start from (or lead to)",
        }),
        page: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 500,
            description:
              'for pageviews: the page path, `*` matching any run of characters ("/pricing", "/blog/*")',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    direction: Type.Optional(
      Type.Union([Type.Literal("after"), Type.Literal("before")], {
        default: "after",
        description: "the steps after the start, or the steps that led to it",
      }),
    ),
    steps: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 5, default: 3, description: "how many steps deep" }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, default: 10, description: "how many paths" }),
    ),
    ...periodFields("default 7d"),
    filter: Type.Optional(Filter),
  },
  { additionalProperties: false },
);
export type PathsBodyT = Static<typeof PathsBody>;

export const Paths = Type.Object({
  start: Type.String({ description: "the start's label" }),
  direction: Type.Union([Type.Literal("after"), Type.Literal("before")]),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  sessions: Type.Integer({ description: "sessions that reached the start" }),
  levels: Type.Array(
    Type.Object({
      step: Type.Integer({ description: "1 = the step next to the start" }),
      sessions: Type.Integer({ description: "sessions with an event this far from the start" }),
      dropOff: Type.Integer({ description: "sessions that ended (or began) one step nearer the start" }),
    }),
  ),
  paths: Type.Array(
    Type.Object({
      nodes: Type.Array(Type.String(), {
        description:
          "the steps in order away from the start (pages as their path, other events as their type)",
      }),
      sessions: Type.Integer(),
    }),
    { description: "the most common paths, most sessions first; a path shorter than `steps` ended there" },
  ),
  links: Type.Array(
    Type.Object({
      step: Type.Integer({ description: "the link goes from step - 1 (0 = the start) to step" }),
      from: Type.String(),
      to: Type.String(),
      sessions: Type.Integer(),
    }),
    { description: 'the flow chart: per step, its 8 most common nodes (others as "(other)")' },
  ),
});
export type PathsT = Static<typeof Paths>;

/** Pickers: what the data holds, for autocomplete. */
export const PickerQuery = Type.Object({
  prefix: Type.Optional(
    Type.String({
      maxLength: 200,
      description: "only names or values starting with this (case-insensitive)",
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

export const PropertyKeysQuery = Type.Object({
  ...PickerQuery.properties,
  scope: Type.Optional(
    Type.Union([Type.Literal("event"), Type.Literal("lead")], {
      default: "event",
      description: "event data or lead properties",
    }),
  ),
  event: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "only the data of this event type" }),
  ),
});

export const ValuesQuery = Type.Object({
  ...PickerQuery.properties,
  key: Type.String({
    minLength: 1,
    maxLength: 106,
    description:
      "a filter key (channel … os, country, page, event, cohort, event.<property>, lead.<property>)",
  }),
});

export const PickerItems = Type.Object({
  items: Type.Array(
    Type.Object({
      value: Type.String(),
      label: Type.Optional(Type.String({ description: "how to show it (a cohort's name)" })),
      count: Type.Integer({ description: "how often it was seen in what was read" }),
    }),
  ),
  sampled: Type.Boolean({ description: "true when read from a sample of the newest events or leads" }),
});
