import type { ProjectRef } from "../../../platform/auth/principal.js";
import { type Db, isPostgresDb, withTransaction } from "../../../platform/db/index.js";

/**
 * PostHog's groups without a person: posthog-node's `groupIdentify` sends `$groupidentify` with the
 * distinct id `$<type>_<key>`, which names no one (map.ts `standaloneGroups`), so its traits belong
 * to the group itself. A secret key's are kept here, merged as PostHog's `$group_set` (a later
 * value of a property wins), and PostHog's `/flags` reads them for the groups a request names
 * (`groupProperties`). A public key's are not: anyone can send that key, and these traits decide
 * flags.
 */

export interface PostHogGroupTable {
  project_id: string;
  group_type: string;
  group_key: string;
  /** The group's traits, a JSON object. */
  properties: string;
  updated_at: number;
}

declare module "../../../platform/db/types.js" {
  interface Database {
    posthog_groups: PostHogGroupTable;
  }
}

/** A group's stored traits stay within this; past it, the newest call's traits replace them. */
const MAX_TRAITS_BYTES = 64 * 1024;

export interface GroupSet {
  type: string;
  key: string;
  set: Record<string, unknown>;
}

/**
 * Merges each group's traits into the stored ones, in one transaction. Groups are taken in one
 * order (type, then key), so two requests touching the same groups never wait on each other in a
 * cycle; calls for one group apply in the request's order.
 */
export async function storeGroupTraits(db: Db, project: ProjectRef, calls: GroupSet[]): Promise<void> {
  if (calls.length === 0) return;
  const byGroup = new Map<string, GroupSet>();
  for (const c of calls) {
    const id = JSON.stringify([c.type, c.key]);
    const seen = byGroup.get(id);
    byGroup.set(id, seen ? { ...c, set: { ...seen.set, ...c.set } } : c);
  }
  const groups = [...byGroup.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
  const now = Date.now();
  await withTransaction(db, async (trx) => {
    for (const g of groups) {
      const where = { project_id: project.id, group_type: g.type, group_key: g.key };
      await trx
        .insertInto("posthog_groups")
        .values({ ...where, properties: "{}", updated_at: now })
        .onConflict((oc) => oc.columns(["project_id", "group_type", "group_key"]).doNothing())
        .execute();
      let read = trx
        .selectFrom("posthog_groups")
        .select("properties")
        .where("project_id", "=", project.id)
        .where("group_type", "=", g.type)
        .where("group_key", "=", g.key);
      // PostgreSQL: another process may merge into the same group at once; SQLite has one writer.
      if (isPostgresDb(trx)) read = read.forUpdate();
      const row = await read.executeTakeFirstOrThrow();
      let properties = JSON.stringify({ ...(JSON.parse(row.properties) as object), ...g.set });
      if (Buffer.byteLength(properties) > MAX_TRAITS_BYTES) properties = JSON.stringify(g.set);
      await trx
        .updateTable("posthog_groups")
        .set({ properties, updated_at: now })
        .where("project_id", "=", project.id)
        .where("group_type", "=", g.type)
        .where("group_key", "=", g.key)
        .execute();
    }
  });
}

/** The stored traits of the named groups (type → key), by group type; unknown groups are absent. */
export async function groupTraitsOf(
  db: Db,
  project: ProjectRef,
  groups: Record<string, string | number>,
): Promise<Record<string, Record<string, unknown>>> {
  const pairs = Object.entries(groups).map(([type, key]) => [type, String(key)] as const);
  if (pairs.length === 0) return {};
  const rows = await db
    .selectFrom("posthog_groups")
    .select(["group_type", "group_key", "properties"])
    .where("project_id", "=", project.id)
    .where((eb) =>
      eb.or(pairs.map(([type, key]) => eb.and([eb("group_type", "=", type), eb("group_key", "=", key)]))),
    )
    .execute();
  const out: Record<string, Record<string, unknown>> = {};
  for (const r of rows)
    if (String(groups[r.group_type]) === r.group_key) out[r.group_type] = JSON.parse(r.properties);
  return out;
}
