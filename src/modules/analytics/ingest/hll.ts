import { boundedCache } from "../../../platform/cache.js";
import { SPLICE_RATIO, withHashes } from "./sparse-text.js";

/**
 * Distinct-visitor counts that merge across days and channels without storing visitor ids per day.
 *
 * A sketch is exact while small: a set of 32-bit visitor hashes ("sparse"). Past `STORED_EXACT`
 * hashes a stored sketch becomes a HyperLogLog with 2^12 registers ("dense"). A union read for a
 * report keeps a set up to `UNION_EXACT` hashes while every sketch it merges is sparse, so a
 * period of small days stays exact though its rows are stored apart. A dense count is Ertl's
 * improved estimator over the registers' histogram ("New cardinality estimation algorithms for
 * HyperLogLog sketches", 2017): no empirical tables, no switch between estimators, no bias across
 * the range (classic HyperLogLog's switch from linear counting runs high just past 2.5 × 2^12).
 * Its error bound is `ESTIMATE_ERROR`, which bench/analytics/hll-error.bench.ts measures.
 *
 * Serialized as text (portable column type): "s" + 8 hex digits per hash, sorted, or "d" + one
 * character per register (chr(48 + rank)), which merges straight from the string without
 * decoding. The estimator reads registers only, so rows written before it count with it as they are.
 */
const P = 12;
const M = 1 << P;
/** bits of the hash after the register index: ranks run 0..Q+1 */
const Q = 32 - P;
/**
 * Hashes a stored sparse sketch holds before it turns dense: its text (8 hex digits a hash) is then
 * 8 × the dense text's; the rows a flush rewrites stay a few tens of KB.
 */
export const STORED_EXACT = 4096;
/**
 * Hashes a union read for a report holds exactly (memory only, freed with the answer). Two of n
 * visitors share a 32-bit hash with probability ≈ n²/2^33: about 40% at this size, one visitor short.
 */
export const UNION_EXACT = 65_536;
/**
 * Relative error that 99% of dense counts stay within, at every cardinality
 * bench/analytics/hll-error.bench.ts measures (single sketches and unions of days).
 */
export const ESTIMATE_ERROR = 0.042;
/** how many dense counts `ESTIMATE_ERROR` bounds */
export const ESTIMATE_CONFIDENCE = 0.99;

const ALPHA_INF = 1 / (2 * Math.LN2);

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

  /** `exactUpTo`: hashes kept as a set before turning dense (a stored row's limit by default). */
  constructor(private readonly exactUpTo = STORED_EXACT) {}

  /** An accumulator for a report's union of stored sketches: exact while they all are, up to UNION_EXACT. */
  static union(): VisitorSketch {
    return new VisitorSketch(UNION_EXACT);
  }

  static parse(text: string): VisitorSketch {
    const s = new VisitorSketch();
    s.mergeText(text);
    return s;
  }

  /** Whether `count()` is exact (a set of hashes), not an estimate. */
  get isExact(): boolean {
    return this.sparse !== null;
  }

  /** Hashes held while exact; 0 once dense. */
  get exactSize(): number {
    return this.sparse?.size ?? 0;
  }

  /** Returns whether the sketch changed. */
  add(hash: number): boolean {
    if (this.sparse) {
      const before = this.sparse.size;
      this.sparse.add(hash >>> 0);
      if (this.sparse.size > this.exactUpTo) this.densify();
      return this.sparse === null || this.sparse.size !== before;
    }
    return setRegister(this.registers!, hash);
  }

  /** Merges a serialized sketch without building an object for it (the summary's hot loop). */
  mergeText(text: string): void {
    if (!text.startsWith("d")) {
      // One native hex decode, then big-endian words: the 8-digit groups, in order.
      const b = Buffer.from(text.substring(1), "hex");
      for (let i = 0; i + 4 <= b.length; i += 4)
        this.add(((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0);
      return;
    }
    if (this.sparse) this.densify();
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
    return Math.round(estimate(this.registers!));
  }

  serialize(): string {
    if (this.sparse) {
      // A typed array filled by a loop, sorted natively, bytes written by hand, one native hex
      // encode: several times faster than Uint32Array.from, writeUInt32BE or per-hash strings.
      const sorted = new Uint32Array(this.sparse.size);
      let n = 0;
      for (const h of this.sparse) sorted[n++] = h;
      sorted.sort();
      const bytes = Buffer.allocUnsafe(n * 4);
      for (let i = 0, j = 0; i < n; i++, j += 4) {
        const h = sorted[i]!;
        bytes[j] = h >>> 24;
        bytes[j + 1] = (h >>> 16) & 255;
        bytes[j + 2] = (h >>> 8) & 255;
        bytes[j + 3] = h & 255;
      }
      return `s${bytes.toString("hex")}`;
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

/** Ertl's improved estimator (his algorithm 6) over the histogram of register values. */
export function estimate(r: Uint8Array): number {
  const c = new Float64Array(Q + 2);
  for (let i = 0; i < M; i++) c[r[i]!]!++;
  let z = M * tau(1 - c[Q + 1]! / M);
  for (let k = Q; k >= 1; k--) z = 0.5 * (z + c[k]!);
  z += M * sigma(c[0]! / M);
  return (ALPHA_INF * M * M) / z;
}

/** σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1): the registers still zero, as a correction for small counts. */
function sigma(x: number): number {
  if (x === 1) return Number.POSITIVE_INFINITY;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const before = z;
    z += x * y;
    y += y;
    if (z === before) return z;
  }
}

/** τ(x): the correction for registers at the top rank (hashes running out of bits). */
function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const before = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === before) return z / 3;
  }
}

function setRegister(r: Uint8Array, hash: number): boolean {
  const idx = hash >>> (32 - P);
  const rest = (hash << P) >>> 0;
  const rank = rest === 0 ? Q + 1 : Math.clz32(rest) + 1;
  if (rank <= r[idx]!) return false;
  r[idx] = rank;
  return true;
}

/** What a report says beside a count that is an estimate; the count is exact without it. */
export interface VisitorsEstimate {
  estimated: true;
  /** ±, as a fraction of the count */
  relativeError: number;
  /** the share of estimates within it */
  confidence: number;
}

/** `{visitorsEstimate}` when the sketch's count is an estimate, else nothing (spread beside `visitors`). */
export function visitorsEstimate(s: VisitorSketch): { visitorsEstimate?: VisitorsEstimate } {
  if (s.isExact) return {};
  return {
    visitorsEstimate: { estimated: true, relativeError: ESTIMATE_ERROR, confidence: ESTIMATE_CONFIDENCE },
  };
}

/** Distinct visitors across many stored sketches. */
export function countUnion(texts: Iterable<string>): number {
  const acc = VisitorSketch.union();
  for (const t of texts) acc.mergeText(t);
  return acc.count();
}

/**
 * Decoded sketches of stored rows, by row. Every flush reads the sketch of each row it touches and
 * would decode it again (4,096 registers, or up to STORED_EXACT hashes); most often the text is the
 * one this process wrote or read there last, so its decoded sketch is reused. The text decides,
 * not the row: a rolled-back flush, another process's write or a rebuild leaves a different text,
 * which is decoded anew. A dense row costs ~4 KB here, a sparse one ~30 bytes a hash: sparse rows
 * past CACHED_SPARSE hashes (up to ~120 KB each) have a cache of their own, with fewer entries.
 */
type Kept = { text: string; sketch: VisitorSketch };
const DECODED = boundedCache<string, Kept>(4096);
const DECODED_LARGE = boundedCache<string, Kept>(256);
const CACHED_SPARSE = 512;

/**
 * The sketch `text` with `hashes` added, serialized; null when none was new (nothing to write).
 * `row` names the stored row the text was read from (table and key), to reuse its decoded sketch.
 */
export function mergedSketch(text: string, hashes: Set<number>, row?: string): string | null {
  if (hashes.size === 0) return null;
  const kept = row === undefined ? undefined : (DECODED.get(row) ?? DECODED_LARGE.get(row));
  const sketch = kept !== undefined && kept.text === text ? kept.sketch : VisitorSketch.parse(text);
  const wasExact = sketch.exactSize;
  const added: number[] = [];
  for (const h of hashes) if (sketch.add(h)) added.push(h >>> 0);
  const next =
    added.length === 0
      ? null
      : sketch.isExact && added.length * SPLICE_RATIO <= wasExact
        ? withHashes(text, added)
        : sketch.serialize();
  if (row === undefined) return next;
  const large = sketch.exactSize > CACHED_SPARSE;
  (large ? DECODED : DECODED_LARGE).delete(row);
  (large ? DECODED_LARGE : DECODED).set(row, { text: next ?? text, sketch });
  return next;
}
