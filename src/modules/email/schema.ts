import { Type } from "@sinclair/typebox";
import { Block, CommType, Slots } from "./template/blocks.js";

export const TxKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
});
export const MintedTxKey = Type.Intersect([TxKey, Type.Object({ rawKey: Type.String() })]);
export const CreateTxKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
export const KeyIdParam = Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 100 }) });
export const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const EmailParam = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }) });
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

export const RecentQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) });

const TagValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const Tags = Type.Record(Type.String(), TagValue, {
  description: "as sent; sandbox sends also carry sandbox: true",
});
export const SendSummary = Type.Object({
  id: Type.String(),
  status: Type.String(),
  to: Type.String(),
  subject: Type.String(),
  commId: Type.Union([Type.String(), Type.Null()]),
  tags: Tags,
  sandbox: Type.Boolean(),
  messageId: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export const SendDetail = Type.Intersect([
  SendSummary,
  Type.Object({
    attempts: Type.Integer(),
    timeline: Type.Array(
      Type.Object({ type: Type.String(), at: Type.String(), detail: Type.Optional(Type.Unknown()) }),
    ),
  }),
]);
export const Suppression = Type.Object({
  email: Type.String(),
  reason: Type.String(),
  detail: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});

export const Communication = Type.Object({
  id: Type.String(),
  name: Type.String(),
  commType: CommType,
  slots: Slots,
  blocks: Type.Array(Block),
  variables: Type.Array(Type.String()),
  builtIn: Type.Boolean(),
  overridden: Type.Boolean(),
  createdAt: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.Union([Type.String(), Type.Null()]),
});
export const CreateCommunicationBody = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    commType: CommType,
    slots: Slots,
    blocks: Type.Array(Block, { maxItems: 100 }),
  },
  { additionalProperties: false },
);
export const PatchCommunicationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    commType: Type.Optional(CommType),
    slots: Type.Optional(Slots),
    blocks: Type.Optional(Type.Array(Block, { maxItems: 100 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const PreviewBody = Type.Object(
  { variables: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: false },
);
export const Preview = Type.Object({
  subject: Type.String(),
  html: Type.String(),
  text: Type.String(),
  missing: Type.Array(Type.String()),
});

// Documentation of the send endpoint (OpenAPI). The route validates by hand, so that every failure
// is a precise `validation_error` in the transactional format; these schemas are not enforced.
const TagsDoc = Type.Record(Type.String(), TagValue, {
  description:
    "flat map of string keys to string, number or boolean values (at most 50), stored on the record " +
    "as given; the key sandbox is reserved (the service sets sandbox: true on sandbox sends)",
});
export const SendBodyDoc = Type.Union([
  Type.Object(
    {
      to: Type.String({ format: "email" }),
      subject: Type.String({ description: "no CR/LF" }),
      html: Type.Optional(Type.String({ description: "instrumented for opens and clicks" })),
      text: Type.Optional(Type.String({ description: "derived from html when absent" })),
      tags: Type.Optional(TagsDoc),
    },
    { title: "Inline shape", additionalProperties: false },
  ),
  Type.Object(
    {
      to: Type.String({ format: "email" }),
      commId: Type.String(),
      variables: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      strict: Type.Optional(Type.Boolean({ default: false })),
      tags: Type.Optional(TagsDoc),
    },
    { title: "Template shape", additionalProperties: false },
  ),
]);
export const SendResultDoc = Type.Object({
  send_id: Type.String(),
  message_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: "sent, or queued when a job continues after transient failures" }),
  sandbox: Type.Boolean(),
});
export const TxErrorDoc = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    missing: Type.Optional(Type.Array(Type.String())),
  }),
});

// ---- dashboard additions: preview of an unsaved body, manual suppressions ----
export const DraftPreviewBody = Type.Object(
  {
    commType: CommType,
    slots: Slots,
    blocks: Type.Array(Block, { maxItems: 100 }),
    variables: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
export const AddSuppressionBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320, pattern: "^[^\\s@]+@[^\\s@]+$" }),
    detail: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
