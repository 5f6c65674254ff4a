import { randomBytes } from "node:crypto";

// Hot path (one id per event): random characters come from a pooled base64url string, and the
// time part is formatted once per millisecond.
let pool = "";
let offset = 0;
let lastMs = -1;
let timePart = "";
let seq = 0;

function randomPart(): string {
  if (offset + 8 > pool.length) {
    pool = randomBytes(3072).toString("base64url"); // 4096 characters, 6 random bits each
    offset = 0;
  }
  const s = pool.slice(offset, offset + 8);
  offset += 8;
  return s;
}

/**
 * Time-ordered id `<prefix>_<ms base36><seq base36><8 random chars>`: sorted by creation within a
 * process, so the events primary key index grows at its right edge (cheap appends); 48 random
 * bits keep ids from different nodes apart.
 */
export function timeOrderedId(prefix: string, now = Date.now()): string {
  if (now === lastMs) seq++;
  else {
    lastMs = now;
    timePart = now.toString(36).padStart(9, "0");
    seq = 0;
  }
  const seqPart = seq < 36 ? `000${seq.toString(36)}` : seq.toString(36).padStart(4, "0");
  return `${prefix}_${timePart}${seqPart}${randomPart()}`;
}
