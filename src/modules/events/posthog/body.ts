import { PassThrough, type Readable } from "node:stream";
import { AppError } from "../../../platform/errors.js";
import { decompress } from "../gzip.js";

/**
 * The bodies PostHog's SDKs send, as the JSON text they carry: posthog-node's gzip
 * (Content-Encoding), posthog-js's `?compression=gzip-js` (gzip bytes labelled text/plain; its
 * sendBeacon drops the query's meaning in some browsers, so gzip's magic bytes decide too), and
 * `?compression=base64` with a form field `data` (older unload beacons). Every decompression goes
 * through gzip.ts's cap: a bomb stops there with 413.
 */

/** What the decoding reads of the request. */
export interface BodyRequest {
  headers: Record<string, string | string[] | undefined>;
  query: unknown;
}

/** The decoded body: its text, as a stream for Fastify's parser, and the sizes it needs. */
export interface Decoded {
  stream: Readable;
  /** the decoded text's UTF-8 size */
  bytes: number;
}

const isGzip = (b: Buffer) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
const BASE64 = /^[A-Za-z0-9+/=\s_-]*$/;

const mediaType = (req: BodyRequest) =>
  String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();

/**
 * JSON as sent (posthog-node without compression, plain HTTP): Fastify reads it as any body, with
 * the route's limit. Only a text/plain or form body may be gzip or base64 unannounced.
 */
export function isPlainJson(req: BodyRequest): boolean {
  return (
    req.headers["content-encoding"] === undefined &&
    (req.query as { compression?: unknown } | null)?.compression === undefined &&
    mediaType(req) === "application/json"
  );
}

/**
 * Reads the request body (at most `cap` bytes as received and as decoded) and returns it as JSON
 * text labelled application/json; throws AppError 400/413/415. `receivedEncodedLength` on the
 * returned stream is the bytes received, which Fastify checks against Content-Length.
 */
export async function decodeBody(payload: Readable, req: BodyRequest, cap: number): Promise<Decoded> {
  const encoding = req.headers["content-encoding"];
  const compression = (req.query as { compression?: unknown } | null)?.compression;
  const type = mediaType(req);
  let received = 0;
  payload.on("data", (c: Buffer) => {
    received += c.length;
  });
  const declared = Number(req.headers["content-length"]);
  if (declared > cap) {
    payload.resume();
    throw tooLarge(cap);
  }
  let body = await collect(
    decompress(payload, typeof encoding === "string" ? encoding : undefined, cap),
    cap,
  );
  if (compression === "gzip-js" || compression === "gzip" || isGzip(body))
    body = await collect(decompress(bufferStream(body), "gzip", cap), cap);
  else if (type === "application/x-www-form-urlencoded" || compression === "base64")
    body = formData(body, type === "application/x-www-form-urlencoded", compression === "base64");
  if (body.length > cap) throw tooLarge(cap);
  // The platform's parser and Content-Type check see what the body now is.
  req.headers["content-type"] = "application/json";
  req.headers["content-encoding"] = undefined;
  const stream = bufferStream(body) as Readable & { receivedEncodedLength?: number };
  stream.receivedEncodedLength = received;
  return { stream, bytes: body.length };
}

/** A form's field `data`, base64-decoded when asked (posthog-js sends it so on unload). */
function formData(body: Buffer, form: boolean, base64: boolean): Buffer {
  const text = body.toString("utf8");
  const data = form || text.startsWith("data=") ? new URLSearchParams(text).get("data") : text;
  if (data === null) throw new AppError("VALIDATION_ERROR", "a form body needs its JSON in the field data");
  if (!base64) return Buffer.from(data);
  if (!BASE64.test(data)) throw new AppError("VALIDATION_ERROR", "body.data is not valid base64");
  // A `+` not escaped in the form reads as a space.
  return Buffer.from(data.replaceAll(" ", "+"), "base64");
}

function bufferStream(b: Buffer): PassThrough {
  const s = new PassThrough();
  s.end(b);
  return s;
}

const tooLarge = (cap: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `request body is larger than ${cap} bytes`);

/** The stream's bytes; past `cap`, 413 and the rest is drained (the client is not reset). */
function collect(stream: Readable, cap: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    const onData = (c: Buffer) => {
      n += c.length;
      if (n <= cap) chunks.push(c);
      else {
        stream.off("data", onData);
        stream.resume();
        reject(tooLarge(cap));
      }
    };
    stream.on("data", onData);
    stream.once("error", reject);
    stream.once("end", () => resolve(Buffer.concat(chunks, n)));
  });
}
