import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import type { IdentityVisitorTable } from "./tables.js";
import "./tables.js";

/** Identity's row of a visitor (its link, its anonymous properties), or undefined. */
export async function findVisitor(trx: Trx, project: ProjectRef, visitorId: string) {
  return trx
    .selectFrom("identity_visitors")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .executeTakeFirst();
}

/**
 * Identity's visitor row holds the link (lead, source, time); it is created on the first link or
 * stitch. Its first/last seen and first touch columns are not maintained (the event store's
 * per-visitor state is read instead) and only record when identity first heard of the visitor.
 */
export async function ensureVisitor(
  trx: Trx,
  project: ProjectRef,
  visitorId: string,
): Promise<IdentityVisitorTable> {
  const now = Date.now();
  await trx
    .insertInto("identity_visitors")
    .values({
      project_id: project.id,
      visitor_id: visitorId,
      workspace_id: project.workspaceId,
      lead_id: null,
      link_source: null,
      linked_at: null,
      first_seen: now,
      last_seen: now,
      channel: null,
      source: null,
      landing_page: null,
      properties: null,
      browser_properties: null,
    })
    .onConflict((oc) => oc.columns(["project_id", "visitor_id"]).doNothing())
    .execute();
  return (await findVisitor(trx, project, visitorId))!;
}
