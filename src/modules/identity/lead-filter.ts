import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import type { LeadPropertyTest } from "./lead-analytics.js";
import { leadPropertyCondition } from "./store.js";
import "./tables.js";

/**
 * What analytics' filters, cohorts and pickers read of leads (through identity's service): which
 * leads hold a property condition, when leads were created, and a sample of their properties.
 * Analytics never reads identity's tables.
 */

/**
 * Ids of the project's leads whose properties satisfy the condition (all: null); a scan of its
 * leads. `serverOnly` (flag targeting): a property a browser wrote counts as missing.
 */
export async function leadIdsWhere(
  db: DbOrTrx,
  project: ProjectRef,
  test: LeadPropertyTest | null,
  opts: { serverOnly?: boolean } = {},
): Promise<Set<string>> {
  let q = db.selectFrom("identity_leads").select("id").where("project_id", "=", project.id);
  if (test) q = q.where(leadPropertyCondition(db, test, opts));
  const rows = await q.execute();
  return new Set(rows.map((r) => r.id));
}

/** Creation time (epoch ms) of each of the given leads that exists. */
export async function leadCreatedTimes(
  db: DbOrTrx,
  project: ProjectRef,
  ids: string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 400) {
    const rows = await db
      .selectFrom("identity_leads")
      .select(["id", "created_at"])
      .where("project_id", "=", project.id)
      .where("id", "in", ids.slice(i, i + 400))
      .execute();
    for (const r of rows) out.set(r.id, Date.parse(r.created_at));
  }
  return out;
}

/** The properties of the project's newest leads (at most `limit`): a sample for pickers. */
export async function latestLeadProperties(
  db: DbOrTrx,
  project: ProjectRef,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom("identity_leads")
    .select("properties")
    .where("project_id", "=", project.id)
    .orderBy("created_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => r.properties);
}
