import { createHash } from "node:crypto";
import type { ProjectRef, PrincipalResolver } from "../../platform/auth/principal.js";
import type { Db, DbOrTrx } from "../../platform/db/index.js";
import type { ActiveExperimentT } from "./schema.js";
import { NO_PAGE } from "./edit.js";
import { parseVariants, parseWeights } from "./view.js";
import type { LRUCache } from "lru-cache";
import { boundedCache } from "../../platform/cache.js";

/** Running experiments of a project, as the snippet needs them. */
export async function listActiveExperiments(db: DbOrTrx, projectId: string): Promise<ActiveExperimentT[]> {
  const rows = await db
    .selectFrom("experiments")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("status", "=", "running")
    // A flag's experiment has no page: the snippet has nothing to show it on.
    .where("target_url", "!=", NO_PAGE)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    targetUrl: r.target_url,
    mode: r.mode,
    trafficSplit: Number(r.traffic_split),
    weights: parseWeights(r),
    variants: parseVariants(r).map((v) => ({
      name: v.name,
      ...(v.css ? { css: v.css } : {}),
      ...(v.js ? { js: v.js } : {}),
    })),
  }));
}

export const etagOf = (body: string | Buffer) =>
  `"${createHash("sha1").update(body).digest("base64url").slice(0, 22)}"`;

/**
 * In-process cache for the public endpoint, which every page view hits: project → serialized
 * active list. Local changes invalidate at once;
 * other nodes see them within the TTL, the same bound the Cache-Control header gives browsers.
 */
export class ActiveCache {
  private bodies: LRUCache<string, { body: string; etag: string }>;
  constructor(
    private db: Db,
    private resolver: PrincipalResolver,
    readonly ttlMs = 5_000,
  ) {
    this.bodies = boundedCache(10_000, ttlMs);
  }

  /** The project of a public key (the workspace module remembers resolutions). */
  resolveKey(key: string): Promise<ProjectRef | null> {
    return this.resolver.resolvePublicKey(key);
  }

  async active(projectId: string): Promise<{ body: string; etag: string }> {
    const hit = this.bodies.get(projectId);
    if (hit) return hit;
    const body = JSON.stringify(await listActiveExperiments(this.db, projectId));
    const entry = { body, etag: etagOf(body) };
    this.bodies.set(projectId, entry);
    return entry;
  }

  invalidate(projectId: string): void {
    this.bodies.delete(projectId);
  }
}
