import { createHash } from "node:crypto";
import type { ProjectRef, PrincipalResolver } from "../../platform/auth/principal.js";
import type { Db } from "../../platform/db/index.js";
import type { ActiveExperimentT } from "./schema.js";
import { parseVariants, parseWeights } from "./service.js";

/** Running experiments of a project, as the snippet needs them. */
export async function listActiveExperiments(db: Db, projectId: string): Promise<ActiveExperimentT[]> {
  const rows = await db
    .selectFrom("experiments")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("status", "=", "running")
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
 * In-process caches for the public endpoints, which every page view hits: public key → project
 * (keys are rarely rotated) and project → serialized active list. Local changes invalidate at once;
 * other nodes see them within the TTL, the same bound the Cache-Control header gives browsers.
 */
export class ActiveCache {
  private keys = new Map<string, { project: ProjectRef | null; at: number }>();
  private bodies = new Map<string, { body: string; etag: string; at: number }>();
  constructor(
    private db: Db,
    private resolver: PrincipalResolver,
    readonly ttlMs = 5_000,
    private keyTtlMs = 60_000,
  ) {}

  async resolveKey(key: string): Promise<ProjectRef | null> {
    const hit = this.keys.get(key);
    const now = Date.now();
    // Unknown keys are cached briefly too, so a flood of bad keys does not reach the database.
    if (hit && now - hit.at < (hit.project ? this.keyTtlMs : this.ttlMs)) return hit.project;
    const project = await this.resolver.resolvePublicKey(key);
    if (this.keys.size > 10_000) this.keys.clear();
    this.keys.set(key, { project, at: now });
    return project;
  }

  async active(projectId: string): Promise<{ body: string; etag: string }> {
    const hit = this.bodies.get(projectId);
    const now = Date.now();
    if (hit && now - hit.at < this.ttlMs) return hit;
    const body = JSON.stringify(await listActiveExperiments(this.db, projectId));
    const entry = { body, etag: etagOf(body), at: now };
    if (this.bodies.size > 10_000) this.bodies.clear();
    this.bodies.set(projectId, entry);
    return entry;
  }

  invalidate(projectId: string): void {
    this.bodies.delete(projectId);
  }
}
