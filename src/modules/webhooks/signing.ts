import { createHmac, randomBytes } from "node:crypto";
import { AppError } from "../../platform/errors.js";

const PREFIX = "whsec_";

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes (what Svix issues). */
export function generateSecret(): string {
  return PREFIX + randomBytes(24).toString("base64");
}

/** The HMAC key of a `whsec_` secret: its base64-decoded part. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.slice(PREFIX.length), "base64");
}

/** Accepts a caller-supplied secret only in the format subscribers' libraries expect. */
export function validateSecret(secret: string): string {
  const body = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : null;
  if (body === null || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) {
    throw new AppError("VALIDATION_ERROR", "secret must be whsec_ followed by base64");
  }
  const bytes = Buffer.from(body, "base64").length;
  if (bytes < 24 || bytes > 64) {
    throw new AppError("VALIDATION_ERROR", "secret must encode 24 to 64 bytes");
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
