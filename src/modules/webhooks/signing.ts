import { createHmac, randomBytes } from "node:crypto";
import { AppError } from "../../platform/errors.js";
import { KEY_PREFIX } from "../../platform/auth/keys.js";

const PREFIX = KEY_PREFIX.webhookSecret;

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes (what Svix issues). */
export function generateSecret(): string {
  return PREFIX + randomBytes(24).toString("base64");
}

/**
 * The HMAC key of a secret. A `whsec_` secret is Standard Webhooks' form: the key is its
 * base64-decoded part. Any other string is the caller's own shared secret: the key is its UTF-8
 * bytes (subscribers pass those bytes to `standardwebhooks` with `format: "raw"`; see
 * docs/decisions/webhooks.md).
 */
export function secretKey(secret: string): Buffer {
  if (secret.startsWith(PREFIX)) return Buffer.from(secret.slice(PREFIX.length), "base64");
  return Buffer.from(secret, "utf8");
}

/**
 * Accepts a caller-supplied secret: any string of 16–256 characters (the schema bounds it). One
 * that starts with `whsec_` claims Standard Webhooks' form, so it must be that form exactly —
 * base64 of 24 to 64 bytes (what Svix accepts) — or subscribers' libraries, which decode it,
 * would not verify.
 */
export function validateSecret(secret: string): string {
  if (!secret.startsWith(PREFIX)) return secret;
  const body = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) {
    throw new AppError("VALIDATION_ERROR", "body.secret starting with whsec_ must continue in base64");
  }
  const bytes = Buffer.from(body, "base64").length;
  if (bytes < 24 || bytes > 64) {
    throw new AppError("VALIDATION_ERROR", "body.secret starting with whsec_ must encode 24 to 64 bytes");
  }
  return secret;
}

/** Standard Webhooks headers for one attempt: the signature covers `id.timestamp.body`. */
export function signedHeaders(secret: string, msgId: string, body: string, now = Date.now()) {
  const timestamp = Math.floor(now / 1000).toString();
  const signature = createHmac("sha256", secretKey(secret))
    .update(`${msgId}.${timestamp}.${body}`)
    .digest("base64");
  return {
    "webhook-id": msgId,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${signature}`,
  };
}
