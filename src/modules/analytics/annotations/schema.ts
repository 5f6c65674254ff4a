import { type Static, Type } from "@sinclair/typebox";

/** Annotations: dated notes on the project's time charts. */

const IsoDate = (description: string) =>
  Type.String({
    minLength: 10,
    maxLength: 10,
    pattern: "^\\d{4}-\\d{2}-\\d{2}$",
    "x-error": "must be an ISO 8601 date (YYYY-MM-DD)",
    description,
  });

const Text = Type.String({
  minLength: 1,
  maxLength: 500,
  description: "what happened (at most 500 characters)",
});

export const Annotation = Type.Object({
  id: Type.String(),
  date: Type.String({ description: "the UTC day it marks (YYYY-MM-DD)" }),
  endDate: Type.Union([Type.String(), Type.Null()], {
    description: "the last day of the period it marks, inclusive; null for one day",
  }),
  text: Type.String(),
  createdBy: Type.Object({
    kind: Type.Union([Type.Literal("apiKey"), Type.Literal("user")]),
    id: Type.String({ description: "the API key's id or the user's id" }),
  }),
  createdAt: Type.String({ format: "date-time" }),
  updatedAt: Type.String({ format: "date-time" }),
});
export type AnnotationT = Static<typeof Annotation>;

export const CreateAnnotationBody = Type.Object(
  {
    date: IsoDate("the UTC day it marks"),
    endDate: Type.Optional(
      Type.Union([IsoDate("the last day of a period it marks, inclusive; not before date"), Type.Null()]),
    ),
    text: Text,
  },
  { additionalProperties: false },
);
export type CreateAnnotationBodyT = Static<typeof CreateAnnotationBody>;

export const PatchAnnotationBody = Type.Object(
  {
    date: Type.Optional(IsoDate("the UTC day it marks")),
    endDate: Type.Optional(
      Type.Union([IsoDate("the last day of a period it marks; null makes it one day"), Type.Null()]),
    ),
    text: Type.Optional(Text),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchAnnotationBodyT = Static<typeof PatchAnnotationBody>;

export const AnnotationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const AnnotationListQuery = Type.Object(
  {
    from: Type.Optional(IsoDate("only annotations that reach this day or later")),
    to: Type.Optional(IsoDate("only annotations that start on this day or earlier")),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
  },
  { additionalProperties: false },
);
export type AnnotationListQueryT = Static<typeof AnnotationListQuery>;
