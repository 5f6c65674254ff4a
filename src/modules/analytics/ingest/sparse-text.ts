/** A stored exact sketch's text (hll.ts: "s", then 8 lowercase hex digits a hash, sorted) with new hashes put in order. */

/**
 * A flush most often adds one to a few hashes to a stored exact set of hundreds or thousands
 * (a week's row for one page or one source): splicing them into the sorted text costs a few
 * binary searches and one join, where serializing the set again sorts and encodes all of it.
 * Past one new hash per SPLICE_RATIO held, the whole serialization is as cheap.
 */
export const SPLICE_RATIO = 64;

/** The sparse text `text` (sorted 8-digit hashes) with `added` (none of them in it) put in order. */
export function withHashes(text: string, added: number[]): string {
  added.sort((a, b) => a - b);
  const n = (text.length - 1) >> 3;
  const parts = ["s"];
  let at = 0;
  for (const h of added) {
    let lo = at;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (hashAt(text, mid) < h) lo = mid + 1;
      else hi = mid;
    }
    if (lo > at) parts.push(text.substring(1 + 8 * at, 1 + 8 * lo));
    parts.push((h + 0x100000000).toString(16).substring(1));
    at = lo;
  }
  if (at < n) parts.push(text.substring(1 + 8 * at));
  return parts.join("");
}

/** The i-th hash of a sparse text (lowercase hex, as `serialize` writes it). */
function hashAt(text: string, i: number): number {
  let v = 0;
  for (let j = 1 + 8 * i, end = j + 8; j < end; j++) {
    const c = text.charCodeAt(j);
    v = v * 16 + (c <= 57 ? c - 48 : c - 87);
  }
  return v;
}
