import { boundedCache } from "../../platform/cache.js";

/**
 * Distinct-visitor counts that merge across days and channels without storing visitor ids per day.
 *
 * A sketch is exact while small (a sorted set of 32-bit visitor hashes, "sparse") and becomes a
 * HyperLogLog with 2^12 registers ("dense", standard error ≈ 1.6%) past SPARSE_LIMIT hashes.
 * A union of sparse sketches is an exact count (up to 32-bit hash collisions, negligible below
 * millions); a union involving a dense one is the HLL estimate with linear counting for small
 * cardinalities. Serialized as text (portable column type): "s" + hex hashes, or "d" + one
 * character per register (chr(48 + rank)), which merges straight from the string without decoding.
 */
const P = 12;
const M = 1 << P;
const SPARSE_LIMIT = 512;
const ALPHA = 0.7213 / (1 + 1.079 / M);
const INVERSE_POWERS = Float64Array.from({ length: 64 }, (_, k) => 2 ** -k);

/**
 * FNV-1a over UTF-16 code units, then MurmurHash3's fmix32 finalizer for avalanche (HLL needs
 * uniformly distributed high bits); a fraction of a microsecond per visitor id.
 */
export function visitorHash(visitorId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < visitorId.length; i++) {
    h ^= visitorId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class VisitorSketch {
  private sparse: Set<number> | null = new Set();
  private registers: Uint8Array | null = null;

  static parse(text: string): VisitorSketch {
    const s = new VisitorSketch();
    if (text.startsWith("d")) {
      s.sparse = null;
      s.registers = new Uint8Array(M);
      s.mergeDenseText(text);
    } else {
      for (let i = 1; i + 8 <= text.length; i += 8) s.sparse!.add(hexAt(text, i));
    }
    return s;
  }

  get isExact(): boolean {
    return this.sparse !== null;
  }

  /** Returns whether the sketch changed. */
  add(hash: number): boolean {
    if (this.sparse) {
      const before = this.sparse.size;
      this.sparse.add(hash >>> 0);
      if (this.sparse.size > SPARSE_LIMIT) this.densify();
      return this.sparse === null || this.sparse.size !== before;
    }
    return setRegister(this.registers!, hash);
  }

  /** Merges a serialized sketch without building an object for it (the summary's hot loop). */
  mergeText(text: string): void {
    if (!text.startsWith("d")) {
      for (let i = 1; i + 8 <= text.length; i += 8) this.add(hexAt(text, i));
      return;
    }
    if (this.sparse) this.densify();
    this.mergeDenseText(text);
  }

  private mergeDenseText(text: string): void {
    const r = this.registers!;
    // One native latin1 copy, then a typed-array loop: several times faster than charCodeAt.
    const bytes = Buffer.from(text, "latin1");
    for (let i = 0; i < M; i++) {
      const v = bytes[i + 1]! - 48;
      if (v > r[i]!) r[i] = v;
    }
  }

  merge(other: VisitorSketch): void {
    if (other.sparse) {
      for (const h of other.sparse) this.add(h);
      return;
    }
    if (this.sparse) this.densify();
    const r = this.registers!;
    const o = other.registers!;
    for (let i = 0; i < M; i++) if (o[i]! > r[i]!) r[i] = o[i]!;
  }

  count(): number {
    if (this.sparse) return this.sparse.size;
    const r = this.registers!;
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < M; i++) {
      sum += INVERSE_POWERS[r[i]!]!;
      if (r[i] === 0) zeros++;
    }
    const raw = (ALPHA * M * M) / sum;
    if (raw <= 2.5 * M && zeros > 0) return Math.round(M * Math.log(M / zeros));
    return Math.round(raw);
  }

  serialize(): string {
    if (this.sparse) {
      let out = "s";
      for (const h of [...this.sparse].sort((a, b) => a - b)) out += h.toString(16).padStart(8, "0");
      return out;
    }
    const chars = Buffer.allocUnsafe(M);
    const r = this.registers!;
    for (let i = 0; i < M; i++) chars[i] = r[i]! + 48;
    return `d${chars.toString("latin1")}`;
  }

  private densify(): void {
    const r = new Uint8Array(M);
    for (const h of this.sparse!) setRegister(r, h);
    this.sparse = null;
    this.registers = r;
  }
}

/** The 8 hex digits at `i` as an unsigned 32-bit number, without slicing the string. */
function hexAt(text: string, i: number): number {
  let v = 0;
  for (let k = i; k < i + 8; k++) {
    const c = text.charCodeAt(k);
    v = v * 16 + (c <= 57 ? c - 48 : c - 87);
  }
  return v;
}

function setRegister(r: Uint8Array, hash: number): boolean {
  const idx = hash >>> (32 - P);
  const rest = (hash << P) >>> 0;
  const rank = rest === 0 ? 32 - P + 1 : Math.clz32(rest) + 1;
  if (rank <= r[idx]!) return false;
  r[idx] = rank;
  return true;
}

/** Distinct visitors across many stored sketches. */
export function countUnion(texts: Iterable<string>): number {
  const acc = new VisitorSketch();
  for (const t of texts) acc.mergeText(t);
  return acc.count();
}

/**
 * Decoded sketches of stored rows, by row. Every flush reads the sketch of each row it touches and
 * would decode it again (4,096 registers, or up to 512 hex hashes); most often the text is the one
 * this process wrote or read there last, so its decoded sketch is reused. The text decides, not
 * the row: a rolled-back flush, another process's write or a rebuild leaves a different text,
 * which is decoded anew. ~8 KB per dense row; the bound keeps a busy day's rows.
 */
const DECODED = boundedCache<string, { text: string; sketch: VisitorSketch }>(4096);

/**
 * The sketch `text` with `hashes` added, serialized; null when none was new (nothing to write).
 * `row` names the stored row the text was read from (table and key), to reuse its decoded sketch.
 */
export function mergedSketch(text: string, hashes: Set<number>, row?: string): string | null {
  if (hashes.size === 0) return null;
  const kept = row === undefined ? undefined : DECODED.get(row);
  const sketch = kept !== undefined && kept.text === text ? kept.sketch : VisitorSketch.parse(text);
  let changed = false;
  for (const h of hashes) changed = sketch.add(h) || changed;
  const next = changed ? sketch.serialize() : null;
  if (row !== undefined) DECODED.set(row, { text: next ?? text, sketch });
  return next;
}
