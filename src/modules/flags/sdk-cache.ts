import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { GrowthBookClient } from "@growthbook/growthbook";
import type { LRUCache } from "lru-cache";
import { boundedCache } from "../../platform/cache.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { appSlot, type ServiceDeps, stateOf } from "../../platform/deps.js";
import { experimentsForFlags } from "../experiments/service.js";
import type { CohortUse } from "./conditions.js";
import type { PostHogSlot } from "./hashing.js";
import {
  type BuiltPayload,
  buildPayload,
  experimentIdsOf,
  type RuleMeta,
  type SdkPayload,
} from "./payload.js";
import { listFlagRows, type Revision, readRevision, toFlag } from "./store.js";

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** One project's served payload: the bytes every SDK downloads and the evaluator over them. */
export interface PayloadEntry {
  projectId: string;
  revision: number;
  remoteEvalOnly: boolean;
  /** Every flag as the server evaluates them; `body` is what local SDKs get (`BuiltPayload.served`). */
  payload: SdkPayload;
  /** The PostHog hashes an evaluation of `payload` needs (hashing.ts). */
  postHogSlots: PostHogSlot[];
  rules: Map<string, RuleMeta>;
  /** flag key → the cohorts its rules test; `allCohorts` is their union (remote evaluation) */
  cohorts: Map<string, CohortUse>;
  allCohorts: CohortUse;
  body: string;
  /** `body` encoded once: each answer writes these bytes without encoding the string again. */
  bytes: Buffer;
  /** Of `body`; the same in every process for the same flags. */
  etag: string;
  /** GrowthBook's own server-side evaluator, initialised with exactly `payload`. */
  client(): GrowthBookClient;
  /** `body` compressed once per entry (not once per request). */
  encoded(encoding: "br" | "gzip"): Promise<Buffer>;
}

export type PayloadLoader = (projectId: string) => Promise<{ built: BuiltPayload; revision: Revision }>;

/**
 * Entries live until a change invalidates them (this process's changes at once, other processes'
 * through the notifier: hub.ts) and at most `ttlMs`: the bound on staleness if a notification is
 * lost.
 */
export const PAYLOAD_TTL_MS = 30_000;

export class PayloadCache {
  private entries: LRUCache<string, PayloadEntry>;
  /** Builds in flight, one per project; an invalidation drops its build so nothing stale is stored. */
  private building = new Map<string, Promise<PayloadEntry>>();

  constructor(
    private load: PayloadLoader,
    ttlMs = PAYLOAD_TTL_MS,
  ) {
    // One entry per project serving SDKs; a large project's payload is a few hundred KB.
    this.entries = boundedCache(1_000, ttlMs);
  }

  /** The cached entry, if any: the hot path reads it without a promise. */
  peek(projectId: string): PayloadEntry | undefined {
    return this.entries.get(projectId);
  }

  get(projectId: string): Promise<PayloadEntry> {
    const hit = this.entries.get(projectId);
    if (hit) return Promise.resolve(hit);
    const pending = this.building.get(projectId);
    if (pending) return pending;
    const build: Promise<PayloadEntry> = this.load(projectId).then(
      ({ built, revision }) => {
        const entry = makeEntry(projectId, built, revision);
        if (this.building.get(projectId) === build) {
          this.building.delete(projectId);
          this.entries.set(projectId, entry);
        }
        return entry;
      },
      (err: unknown) => {
        if (this.building.get(projectId) === build) this.building.delete(projectId);
        throw err;
      },
    );
    this.building.set(projectId, build);
    return build;
  }

  invalidate(projectId: string): void {
    this.entries.delete(projectId);
    this.building.delete(projectId);
  }

  clear(): void {
    this.entries.clear();
    this.building.clear();
  }
}

/**
 * This process's payloads, one per project. Serving one needs nothing else: the change side
 * (hub.ts, built at registration) drops entries when this process or another changes flags.
 */
const PAYLOAD_CACHE = appSlot(
  "flags.payload-cache",
  (deps) => new PayloadCache((id) => loadPayload(deps.db, id)),
);

export const payloadCache = (deps: ServiceDeps): PayloadCache => stateOf(deps, PAYLOAD_CACHE);

/** The payload the project's SDKs get now (cached per process). */
export const sdkPayload = (deps: ServiceDeps, projectId: string): Promise<PayloadEntry> =>
  payloadCache(deps).get(projectId);

/** The cached payload, if any, without waiting (the hot path's first look). */
export const cachedSdkPayload = (deps: ServiceDeps, projectId: string): PayloadEntry | undefined =>
  payloadCache(deps).peek(projectId);

/** The payload, rebuilt first unless it holds `key` (created on a process that could not tell this one). */
export async function payloadWith(deps: ServiceDeps, projectId: string, key: string): Promise<PayloadEntry> {
  const entry = await sdkPayload(deps, projectId);
  if (key in entry.payload.features) return entry;
  payloadCache(deps).invalidate(projectId);
  return sdkPayload(deps, projectId);
}

/**
 * Reads what the project serves now: its revision, then its flags and the experiments they name.
 * In that order: a change committing in between gives new flags under the old dateUpdated, and the
 * rebuild its notification causes then moves dateUpdated (the other order could give new flags
 * under an unchanged dateUpdated, which SDKs would ignore).
 */
async function loadPayload(db: DbOrTrx, projectId: string) {
  const revision = await readRevision(db, projectId);
  const rows = await listFlagRows(db, projectId);
  const flags = rows.map(toFlag);
  const experiments = await experimentsForFlags(db, projectId, experimentIdsOf(flags));
  return {
    revision,
    built: buildPayload(flags, new Map(experiments.map((e) => [e.id, e])), revision.revisedAt),
  };
}

function unionOf(perFlag: Map<string, CohortUse>): CohortUse {
  const all: CohortUse = new Map();
  for (const uses of perFlag.values())
    for (const [id, on] of uses) all.set(id, new Set([...(all.get(id) ?? []), ...on]));
  return all;
}

export const etagOf = (body: string) =>
  `"${createHash("sha1").update(body).digest("base64url").slice(0, 22)}"`;

function makeEntry(projectId: string, built: BuiltPayload, revision: Revision): PayloadEntry {
  const body = JSON.stringify(built.served);
  let client: GrowthBookClient | undefined;
  return {
    projectId,
    revision: revision.revision,
    remoteEvalOnly: revision.remoteEvalOnly,
    payload: built.payload,
    postHogSlots: built.postHogSlots,
    rules: built.rules,
    cohorts: built.cohorts,
    allCohorts: unionOf(built.cohorts),
    body,
    bytes: Buffer.from(body),
    etag: etagOf(body),
    client() {
      client ??= new GrowthBookClient().initSync({ payload: built.payload });
      return client;
    },
    encoded: encodedOnce(body),
  };
}

/** `body` compressed at most once per encoding, when first asked. */
export function encodedOnce(body: string): (encoding: "br" | "gzip") => Promise<Buffer> {
  const encodings = new Map<string, Promise<Buffer>>();
  return (encoding) => {
    let p = encodings.get(encoding);
    if (!p) {
      p =
        encoding === "br"
          ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } })
          : gzipAsync(body, { level: 9 });
      encodings.set(encoding, p);
    }
    return p;
  };
}
