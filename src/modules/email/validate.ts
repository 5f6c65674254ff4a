import { TxError } from "./schema.js";
import { compileSchema, firstSchemaError } from "../../platform/validation.js";
import {
  EMAIL_PATTERN,
  InlineSend,
  type InlineSendBody,
  SANDBOX_TAG,
  TemplateSend,
  type TemplateSendBody,
} from "./schema.js";
import type { Variables } from "../../platform/mail/template/engine.js";

export { SANDBOX_TAG };

/** Tag values: scalars, stored as given ("string-key metadata stored on the record as a JSON blob"). */
export type TagValue = string | number | boolean;
export type Tags = Record<string, TagValue>;

export type SendRequest =
  | { kind: "inline"; to: string; subject: string; html?: string; text?: string; tags: Tags }
  | { kind: "template"; to: string; commId: string; variables: Variables; strict: boolean; tags: Tags };

const EMAIL = new RegExp(EMAIL_PATTERN);
export const isEmail = (s: string) => s.length <= 254 && EMAIL.test(s);

const INLINE = ["subject", "html", "text"];
const TEMPLATE = ["commId", "variables", "strict"];

// The two shapes of schema.ts, compiled; the body's keys say which one applies, so an error names
// the field of that shape (a union's check would only say "matches neither").
const checkInline = compileSchema(InlineSend);
const checkTemplate = compileSchema(TemplateSend);

const bad = (message: string) => new TxError("validation_error", message);

/**
 * The send route's validator: every failure is 400 validation_error in the transactional format.
 * What the schemas cannot say (the shapes are exclusive, inline needs html or text) is checked here.
 */
export function validateSendBody(body: unknown): void {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw bad("body must be a JSON object");
  const inline = INLINE.filter((k) => k in body);
  const template = TEMPLATE.filter((k) => k in body);
  if (inline.length && template.length) {
    throw bad(`commId and inline fields are mutually exclusive (got ${[...template, ...inline].join(", ")})`);
  }
  const check = template.length ? checkTemplate : checkInline;
  if (!check(body)) throw bad(firstSchemaError(check, "body").message);
  if (!template.length) {
    const { html, text } = body as InlineSendBody;
    if (!html && !text) throw bad("one of body.html or body.text is required");
  }
}

/** A body the route's validator accepted, as the send path uses it. */
export function toSendRequest(body: InlineSendBody | TemplateSendBody): SendRequest {
  const tags = body.tags ?? {};
  if ("commId" in body) {
    return {
      kind: "template",
      to: body.to,
      commId: body.commId,
      variables: (body.variables as Variables | undefined) ?? {},
      strict: body.strict === true,
      tags,
    };
  }
  return {
    kind: "inline",
    to: body.to,
    subject: body.subject,
    html: body.html || undefined,
    text: body.text || undefined,
    tags,
  };
}
