import { Transform, type Readable, type TransformCallback } from "node:stream";
import { createGunzip, createInflate } from "node:zlib";
import { AppError } from "../../platform/errors.js";

/** Passes bytes through until `cap`, then fails with 413: a gzip bomb stops at the cap. */
class CapStream extends Transform {
  private seen = 0;
  /** compressed bytes read from the request; Fastify compares it with Content-Length */
  receivedEncodedLength = 0;
  constructor(private cap: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.cap) {
      done(
        new AppError(
          "PAYLOAD_TOO_LARGE",
          `request body is larger than ${this.cap} bytes after decompression`,
        ),
      );
      return;
    }
    done(null, chunk);
  }
}

/**
 * preParsing step for Content-Encoding gzip/deflate: returns the decompressed stream, limited to
 * `cap` bytes of output. On the cap or corrupt input the decompressor is destroyed at once (no CPU
 * spent on the rest of a bomb) and the request's remaining bytes are drained, not decompressed.
 */
export function decompress(payload: Readable, encoding: string | undefined, cap: number): Readable {
  const enc = (encoding ?? "identity").trim().toLowerCase();
  if (enc === "identity" || enc === "") return payload;
  if (enc !== "gzip" && enc !== "x-gzip" && enc !== "deflate")
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Encoding must be gzip, deflate or identity");
  const inflate = enc === "deflate" ? createInflate() : createGunzip();
  const out = new CapStream(cap);
  const stop = (err: Error) => {
    payload.unpipe(inflate);
    inflate.destroy();
    payload.resume();
    out.destroy(err);
  };
  payload.on("data", (c: Buffer) => {
    out.receivedEncodedLength += c.length;
  });
  inflate.on("error", () => stop(new AppError("VALIDATION_ERROR", `body is not valid ${enc} data`)));
  out.on("error", () => {
    payload.unpipe(inflate);
    inflate.destroy();
    payload.resume();
  });
  // Unpiped before the body ended: the request was refused before its body was read (a
  // Content-Length past the limit), and the decompressor has nothing more to do. (A body that
  // ended unpipes too, with output perhaps still to pass on.)
  inflate.once("unpipe", () => {
    if (!payload.readableEnded) inflate.destroy();
  });
  payload.pipe(inflate).pipe(out);
  return out;
}
