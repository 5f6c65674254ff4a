import { type Static, Type } from "@sinclair/typebox";
import { type ErrorCode, type ErrorFormat, FormattedError } from "../../platform/errors.js";
import { X_ERROR } from "../../platform/validation.js";
import { Block, CommType, Slots } from "../../platform/mail/template/blocks.js";
import { NoPayload, jobKind } from "../../platform/jobs/index.js";

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

// ---- POST /api/v1/transactional/send: the OpenAPI contract, its error table, the check in validate.ts ----

/** The tag the service writes on every sandbox send; callers cannot set it. */
export const SANDBOX_TAG = "sandbox";
export const MAX_TAGS = 50;
export const MAX_SUBJECT = 998;
export const MAX_CONTENT = 512 * 1024;
const MAX_VARIABLE_DEPTH = 5;

// Deliberately plain: one @, no spaces or control characters, a dotted domain (what SMTP accepts).
export const EMAIL_PATTERN =
  '^[^\\s@<>()[\\]\\\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$';
const Recipient = Type.String({
  maxLength: 254,
  pattern: EMAIL_PATTERN,
  [X_ERROR]: "must be a valid email address",
  description: "recipient email address",
});
const SendTags = Type.Unsafe<Record<string, string | number | boolean>>({
  type: "object",
  maxProperties: MAX_TAGS,
  propertyNames: {
    allOf: [
      { maxLength: 100, [X_ERROR]: "is too long (keys are at most 100 characters)" },
      { not: { const: SANDBOX_TAG }, [X_ERROR]: "is set by the service on sandbox sends" },
    ],
  },
  additionalProperties: {
    type: ["string", "number", "boolean"],
    maxLength: 1000,
    [X_ERROR]:
      "must be a string, number or boolean (tags are flat metadata; strings at most 1000 characters)",
  },
  description:
    "flat map of string keys to string, number or boolean values (at most 50), stored on the record " +
    "as given; the key sandbox is reserved (the service sets sandbox: true on sandbox sends)",
});
/** Variables: string, number or boolean values; nested objects (for dotted keys) up to 5 levels. */
function variableValue(depth: number): Record<string, unknown> {
  if (depth > MAX_VARIABLE_DEPTH)
    return {
      type: ["string", "number", "boolean"],
      [X_ERROR]: "must be a string, number or boolean (nested too deeply)",
    };
  return {
    type: ["string", "number", "boolean", "object"],
    additionalProperties: variableValue(depth + 1),
    [X_ERROR]: "must be a string, number, boolean or object",
  };
}
const Variables = Type.Unsafe<Record<string, unknown>>({
  type: "object",
  additionalProperties: variableValue(1),
  description: "values for the template's {{placeholders}}; nested objects fill dotted names",
});
export const InlineSend = Type.Object(
  {
    to: Recipient,
    subject: Type.String({
      minLength: 1,
      maxLength: MAX_SUBJECT,
      pattern: "^[^\\r\\n]*\\S[^\\r\\n]*$",
      [X_ERROR]: `must be a non-empty line of at most ${MAX_SUBJECT} characters (no CR or LF)`,
    }),
    html: Type.Optional(
      Type.String({
        maxLength: MAX_CONTENT,
        description: "instrumented for opens and clicks; at most 512 KiB",
      }),
    ),
    text: Type.Optional(
      Type.String({ maxLength: MAX_CONTENT, description: "derived from html when absent; at most 512 KiB" }),
    ),
    tags: Type.Optional(SendTags),
  },
  { title: "Inline shape", additionalProperties: false, description: "one of html or text is required" },
);
export const TemplateSend = Type.Object(
  {
    to: Recipient,
    commId: Type.String({ minLength: 1, maxLength: 100 }),
    variables: Type.Optional(Variables),
    strict: Type.Optional(Type.Boolean({ default: false })),
    tags: Type.Optional(SendTags),
  },
  { title: "Template shape", additionalProperties: false },
);
export const SendBody = Type.Union([InlineSend, TemplateSend]);
export type InlineSendBody = Static<typeof InlineSend>;
export type TemplateSendBody = Static<typeof TemplateSend>;

export const SendResultDoc = Type.Object({
  send_id: Type.String(),
  message_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: "sent, or queued when a job continues after transient failures" }),
  sandbox: Type.Boolean(),
});
/** Codes of the transactional send API's errors (the spec's table; statuses in TX_ERROR_STATUS). */
export const TX_ERROR_CODES = [
  "validation_error",
  "comm_type_mismatch",
  "missing_variables",
  "unauthorized",
  "comm_not_found",
  "idempotency_key_mismatch",
  "idempotency_in_flight",
  "send_failed",
  "bounce",
  "suppressed",
  "rate_limited",
  "internal_error",
] as const;

/** The transactional send API's error body (the spec's format, plus the request's id in the log). */
export const TransactionalError = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ enum: [...TX_ERROR_CODES] }),
      message: Type.String(),
      missing: Type.Optional(
        Type.Array(Type.String(), { description: "missing_variables: the keys not provided" }),
      ),
      requestId: Type.String({ description: "the id of the request in the server's log" }),
    }),
  },
  { description: "The error format of the transactional send API (/api/v1/transactional/…)" },
);

/** A code of the transactional send API (`{error: {code, message, missing?}}`). */
export type TxErrorCode = (typeof TX_ERROR_CODES)[number];

/** Status of each transactional error code: the one place a status is chosen. */
export const TX_ERROR_STATUS: Record<TxErrorCode, number> = {
  validation_error: 400,
  comm_type_mismatch: 400,
  missing_variables: 400,
  unauthorized: 401,
  comm_not_found: 404,
  idempotency_key_mismatch: 409,
  idempotency_in_flight: 409,
  send_failed: 422,
  bounce: 422,
  suppressed: 422,
  rate_limited: 429,
  internal_error: 500,
};

export class TxError extends FormattedError {
  declare readonly code: TxErrorCode;
  constructor(code: TxErrorCode, message: string, missing?: string[], headers: Record<string, string> = {}) {
    super(TX_ERROR_STATUS[code], code, message, missing ? { missing } : {}, headers);
  }
}

/** General codes raised outside the module (body parser, auth plugins, limits) as transactional ones. */
const FROM_GENERAL: Partial<Record<ErrorCode, TxErrorCode>> = {
  VALIDATION_ERROR: "validation_error",
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "unauthorized",
  RATE_LIMITED: "rate_limited",
  PAYLOAD_TOO_LARGE: "validation_error",
  UNSUPPORTED_MEDIA_TYPE: "validation_error",
  NOT_FOUND: "validation_error",
};

/** The transactional API's error format, named by its routes' `config.errorFormat`. */
export const TRANSACTIONAL_ERRORS: ErrorFormat = {
  schemaName: "TransactionalError",
  schema: TransactionalError,
  statuses: TX_ERROR_STATUS,
  codeFor: (general) => FROM_GENERAL[general] ?? "internal_error",
  body: (code, message, extra, requestId) => ({ error: { code, message, ...extra, requestId } }),
};

export const sendLimitExceeded = (max: number, after: string) =>
  new TxError("rate_limited", `rate limit exceeded: ${max} sends per minute for this key; retry in ${after}`);

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

// ---- jobs (email/jobs.ts defines their handlers) ----
/** Continues a send after its in-request attempts (and after a crash). */
export const DELIVER_JOB = jobKind("email.deliver", Type.Object({ sendId: Type.String() }));
export const CLEANUP_JOB = jobKind("email.idempotency-cleanup", NoPayload);
