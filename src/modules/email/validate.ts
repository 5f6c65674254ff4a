import { TxError } from "../../platform/errors.js";
import type { Variables } from "./template/engine.js";

/** Tag values: scalars, stored as given ("string-key metadata stored on the record as a JSON blob"). */
export type TagValue = string | number | boolean;
export type Tags = Record<string, TagValue>;
/** The tag the service writes on every sandbox send; callers cannot set it. */
export const SANDBOX_TAG = "sandbox";

export type SendRequest =
  | {
      kind: "inline";
      to: string;
      subject: string;
      html?: string;
      text?: string;
      tags: Tags;
    }
  | {
      kind: "template";
      to: string;
      commId: string;
      variables: Variables;
      strict: boolean;
      tags: Tags;
    };

const INLINE = new Set(["subject", "html", "text"]);
const TEMPLATE = new Set(["commId", "variables", "strict"]);
const COMMON = new Set(["to", "tags"]);

// Deliberately plain: one @, no spaces or control characters, a dotted domain (what SMTP accepts).
const EMAIL =
  /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$/;
export const isEmail = (s: string) => s.length <= 254 && EMAIL.test(s);

const MAX_TAGS = 50;
const MAX_BODY = 512 * 1024;

const bad = (message: string) => new TxError(400, "validation_error", message);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Variables: string, number or boolean values; nested objects only for dotted keys. */
function checkVariables(v: unknown, path: string, depth: number): void {
  if (!isPlainObject(v)) throw bad(`${path} must be an object`);
  if (depth > 5) throw bad(`${path} is nested too deeply`);
  for (const [k, val] of Object.entries(v)) {
    const p = `${path}.${k}`;
    if (typeof val === "string" || typeof val === "boolean") continue;
    if (typeof val === "number") {
      if (!Number.isFinite(val)) throw bad(`${p} must be a finite number`);
      continue;
    }
    if (isPlainObject(val)) checkVariables(val, p, depth + 1);
    else throw bad(`${p} must be a string, number, boolean or object`);
  }
}

/** Tags: a flat map of string keys to string, number or boolean values, at most 50 keys. */
function parseTags(tags: unknown): Tags {
  const out: Tags = {};
  if (tags === undefined) return out;
  if (!isPlainObject(tags)) throw bad("body.tags must be an object of string, number or boolean values");
  const entries = Object.entries(tags);
  if (entries.length > MAX_TAGS) throw bad(`body.tags holds at most ${MAX_TAGS} keys`);
  for (const [k, v] of entries) {
    if (k === SANDBOX_TAG) throw bad(`body.tags.${k} is set by the service on sandbox sends`);
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
      throw bad(`body.tags.${k} must be a string, number or boolean (tags are flat metadata)`);
    }
    if (typeof v === "number" && !Number.isFinite(v)) throw bad(`body.tags.${k} must be a finite number`);
    if (k.length > 100 || (typeof v === "string" && v.length > 1000)) throw bad(`body.tags.${k} is too long`);
    out[k] = v;
  }
  return out;
}

/** Validates the body of POST /api/v1/transactional/send; every failure is 400 validation_error. */
export function parseSendBody(body: unknown): SendRequest {
  if (!isPlainObject(body)) throw bad("body must be a JSON object");
  for (const k of Object.keys(body)) {
    if (!INLINE.has(k) && !TEMPLATE.has(k) && !COMMON.has(k)) throw bad(`body.${k} is not allowed`);
  }
  const inline = Object.keys(body).filter((k) => INLINE.has(k));
  const template = Object.keys(body).filter((k) => TEMPLATE.has(k));
  if (inline.length && template.length) {
    throw bad(`commId and inline fields are mutually exclusive (got ${[...template, ...inline].join(", ")})`);
  }
  const { to, tags } = body;
  if (typeof to !== "string" || to.length === 0) throw bad("body.to is required (recipient email address)");
  if (!isEmail(to)) throw bad("body.to must be a valid email address");
  const tagMap = parseTags(tags);
  if (template.length) {
    const { commId, variables, strict } = body;
    if (typeof commId !== "string" || commId.length === 0)
      throw bad("body.commId is required with variables or strict");
    if (variables !== undefined) checkVariables(variables, "body.variables", 0);
    if (strict !== undefined && typeof strict !== "boolean") throw bad("body.strict must be a boolean");
    return {
      kind: "template",
      to,
      commId,
      variables: (variables as Variables) ?? {},
      strict: strict === true,
      tags: tagMap,
    };
  }
  const { subject, html, text } = body;
  if (subject === undefined) throw bad("body.subject is required (or send commId for a template)");
  if (typeof subject !== "string" || subject.trim() === "")
    throw bad("body.subject must be a non-empty string");
  if (/[\r\n]/.test(subject)) throw bad("body.subject must not contain CR or LF");
  if (subject.length > 998) throw bad("body.subject is longer than 998 characters");
  for (const [k, v] of [
    ["html", html],
    ["text", text],
  ] as const) {
    if (v !== undefined && typeof v !== "string") throw bad(`body.${k} must be a string`);
    if (typeof v === "string" && v.length > MAX_BODY) throw bad(`body.${k} is larger than 512 KiB`);
  }
  const h = (html as string | undefined) || undefined;
  const t = (text as string | undefined) || undefined;
  if (!h && !t) throw bad("one of body.html or body.text is required");
  return { kind: "inline", to, subject, html: h, text: t, tags: tagMap };
}
