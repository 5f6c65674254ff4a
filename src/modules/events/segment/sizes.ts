import { MAX_MESSAGE_BYTES } from "./schema.js";

/**
 * Segment's 32 KB per message, measured on the request's text. Serializing each parsed message
 * again costs as much as parsing it, and scanning the text less than half of that
 * (docs/decisions/performance.md). So the text is scanned only when the body could hold a message that large: it cannot when the body's
 * bytes, less a lower bound of every other message's length, stay within the limit.
 */

/** Top-level fields of a message whose text is counted: the ones every SDK sends as strings. */
const COUNTED = [
  "type",
  "event",
  "userId",
  "anonymousId",
  "messageId",
  "timestamp",
  "originalTimestamp",
] as const;

/**
 * A lower bound of a parsed message's length in its JSON text: its braces, and each counted field
 * that is a string, with its key, quotes, colon and comma (escapes only lengthen a string). Read by
 * name rather than by enumerating keys: it runs for every message of a large batch.
 */
export function minTextLength(message: unknown): number {
  if (typeof message !== "object" || message === null) return 1;
  let n = 2;
  for (const k of COUNTED) {
    const v = (message as Record<string, unknown>)[k];
    if (typeof v === "string") n += k.length + v.length + 6;
  }
  // Each counted field is followed by a comma or the closing brace, counted once too many.
  return n - 1;
}

/**
 * The indexes of the messages of `batch` larger than MAX_MESSAGE_BYTES, measured on `text` (the
 * body as received, after decompression; `byteLength` its UTF-8 size when known), or null when the
 * text's `batch` array cannot be found (an escaped key): the caller then measures the parsed
 * messages.
 */
export function oversizedMessages(text: string, messages: unknown[], byteLength?: number): number[] | null {
  // A UTF-8 byte is at most 3 UTF-16 units' worth: a shorter body holds no message that large.
  if (text.length * 3 <= MAX_MESSAGE_BYTES) return [];
  // A message's bytes are at most the body's less the others' (bytes >= UTF-16 units >= bound).
  const bytes = byteLength ?? Buffer.byteLength(text);
  let sum = 0;
  let max = 0;
  for (const m of messages) {
    const n = minTextLength(m);
    sum += n;
    if (n > max) max = n;
  }
  if (bytes - sum + max <= MAX_MESSAGE_BYTES) return [];
  const spans = batchElementSpans(text);
  if (!spans || spans.length / 2 !== messages.length) return null;
  const out: number[] = [];
  for (let i = 0; i < spans.length; i += 2) {
    const units = spans[i + 1]! - spans[i]!;
    // bytes >= UTF-16 units >= bytes / 3
    if (units * 3 <= MAX_MESSAGE_BYTES) continue;
    if (
      units > MAX_MESSAGE_BYTES ||
      Buffer.byteLength(text.slice(spans[i]!, spans[i + 1]!)) > MAX_MESSAGE_BYTES
    )
      out.push(i / 2);
  }
  return out;
}

/** The size of one parsed message, for when the text cannot be used. */
export const messageBytes = (message: unknown): number => Buffer.byteLength(JSON.stringify(message) ?? "");

/** The index after the string starting at `i` (a `"`). */
function skipString(text: string, i: number): number {
  let j = i;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) return text.length;
    let slashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === 92; k--) slashes++;
    if (slashes % 2 === 0) return j + 1;
  }
}

/**
 * Start and end offsets of each element of the top-level object's last `batch` array (JSON.parse
 * keeps the last of repeated keys), flat; null without one. The text is valid JSON (parsed already).
 */
export function batchElementSpans(text: string): number[] | null {
  let depth = 0;
  let keyStart = -1;
  let keyEnd = -1;
  let found: number[] | null = null;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = skipString(text, i);
      if (depth === 1) {
        keyStart = i;
        keyEnd = end;
      }
      i = end;
      continue;
    }
    if (c === 91 && depth === 1 && isKey(text, keyStart, keyEnd, i, '"batch"')) {
      const spans: number[] = [];
      i = elementSpans(text, i, spans);
      found = spans;
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    i++;
  }
  return found;
}

/** Whether the string at [start, end) is `name` and only a colon (and spaces) separates it from `at`. */
function isKey(text: string, start: number, end: number, at: number, name: string): boolean {
  if (start < 0 || end - start !== name.length || !text.startsWith(name, start)) return false;
  return /^\s*:\s*$/.test(text.slice(end, at));
}

/** Pushes [start, end) of each element of the array opening at `open`; returns the index after it. */
function elementSpans(text: string, open: number, spans: number[]): number {
  let depth = 0;
  let start = -1;
  for (let i = open + 1; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      if (start < 0) start = i;
      i = skipString(text, i);
      continue;
    }
    if (depth === 0 && (c === 44 || c === 93)) {
      if (start >= 0) spans.push(start, trimEnd(text, i));
      start = -1;
      if (c === 93) return i + 1;
    } else if (c !== 32 && c !== 10 && c !== 13 && c !== 9) {
      if (start < 0) start = i;
      if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) depth--;
    }
    i++;
  }
  return text.length;
}

function trimEnd(text: string, end: number): number {
  let e = end;
  for (
    let c = text.charCodeAt(e - 1);
    c === 32 || c === 10 || c === 13 || c === 9;
    c = text.charCodeAt(--e - 1)
  );
  return e;
}
