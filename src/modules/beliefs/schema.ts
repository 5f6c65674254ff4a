import { type Static, Type } from "@sinclair/typebox";

export const EvidenceType = Type.Union([
  Type.Literal("experiment"),
  Type.Literal("observation"),
  Type.Literal("external"),
]);

/**
 * How the entry's delta was obtained: `reported` — given through the API as it is;
 * `standardised_uplift` — a completed experiment's uplift z-score, capped and scaled to [−1, 1]
 * (docs/decisions/experiments.md).
 */
export const EvidenceMethod = Type.Union([
  Type.Literal("reported"),
  Type.Literal("standardised_uplift"),
  Type.Literal("sequential_uplift"),
]);
export type EvidenceMethodT = Static<typeof EvidenceMethod>;

export const Evidence = Type.Object({
  type: EvidenceType,
  experimentId: Type.Optional(Type.String()),
  delta: Type.Number(),
  sampleSize: Type.Optional(Type.Number()),
  method: Type.Optional(EvidenceMethod),
  confidenceBefore: Type.Number(),
  confidenceAfter: Type.Number(),
  timestamp: Type.String(),
});
export const Belief = Type.Object({
  id: Type.String(),
  statement: Type.String(),
  confidence: Type.Number(),
  evidence: Type.Array(Evidence),
  tags: Type.Array(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type BeliefT = Static<typeof Belief>;

export const CreateBeliefBody = Type.Object(
  {
    statement: Type.String({ minLength: 1, maxLength: 2000 }),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);
export type CreateBelief = Static<typeof CreateBeliefBody>;

export const UpdateConfidenceBody = Type.Object(
  {
    type: EvidenceType,
    experimentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    delta: Type.Number(),
    sampleSize: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type UpdateConfidence = Static<typeof UpdateConfidenceBody>;

export const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
