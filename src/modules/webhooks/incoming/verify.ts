import { createHmac } from "node:crypto";
import { safeEqual } from "../../../platform/crypto.js";

/** Platforms' replay window where the signature carries a timestamp. */
export const TOLERANCE_MS = 5 * 60_000;

/** `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=<hex>…]` parsed; null when malformed. */
export function parseStripeHeader(header: string | undefined): { t: number; v1: string[] } | null {
  if (!header) return null;
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(",")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    if (k === "t" && /^\d+$/.test(v)) t = Number(v);
    else if (k === "v1") v1.push(v);
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

/** Stripe: hex HMAC-SHA256 of `${t}.${rawBody}` keyed by the endpoint secret, any v1 may match. */
export function verifyStripe(rawBody: string, parsed: { t: number; v1: string[] }, secret: string): boolean {
  const expected = createHmac("sha256", secret).update(`${parsed.t}.${rawBody}`).digest("hex");
  let ok = false;
  for (const sig of parsed.v1) ok = safeEqual(sig, expected) || ok;
  return ok;
}

// HubSpot's v3 instructions decode these escapes in the URI before signing.
const HUBSPOT_DECODE: Record<string, string> = {
  "%3A": ":",
  "%2F": "/",
  "%3F": "?",
  "%40": "@",
  "%21": "!",
  "%24": "$",
  "%27": "'",
  "%28": "(",
  "%29": ")",
  "%2A": "*",
  "%2C": ",",
  "%3B": ";",
};
export function hubspotUri(uri: string): string {
  return uri.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (m) => HUBSPOT_DECODE[m.toUpperCase()] ?? m);
}

/** HubSpot v3: base64 HMAC-SHA256 of method + URI + body + timestamp keyed by the app's client secret. */
export function hubspotV3Signature(
  secret: string,
  method: string,
  uri: string,
  rawBody: string,
  timestamp: string,
): string {
  return createHmac("sha256", secret)
    .update(`${method}${hubspotUri(uri)}${rawBody}${timestamp}`)
    .digest("base64");
}
export function verifyHubSpotV3(
  secret: string,
  req: { method: string; uri: string; rawBody: string; timestamp: string; signature: string },
): boolean {
  return safeEqual(
    req.signature,
    hubspotV3Signature(secret, req.method, req.uri, req.rawBody, req.timestamp),
  );
}

/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`. */
export function verifyGitHub(rawBody: string, header: string, secret: string): boolean {
  const expected = `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
  return safeEqual(header, expected);
}
