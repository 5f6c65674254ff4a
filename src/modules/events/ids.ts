import { randomBytes } from "node:crypto";

// Hot path: crypto.randomBytes per id costs a syscall-ish call each; draw from a pooled buffer.
let pool = randomBytes(4096);
let offset = 0;
let lastMs = 0;
let seq = 0;

function randomPart(): string {
  if (offset + 6 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const s = pool.toString("base64url", offset, offset + 6);
  offset += 6;
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
    seq = 0;
  }
  return `${prefix}_${now.toString(36).padStart(9, "0")}${seq.toString(36).padStart(4, "0")}${randomPart()}`;
}
