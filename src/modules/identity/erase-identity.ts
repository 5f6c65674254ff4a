import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import "./tables.js";

/** Whom an erasure covers, as identity knows it: the lead (if one is named) and its visitors. */
export interface IdentitySubject {
  /** the erased lead's row, if the subject is a lead that exists */
  lead: { id: string; channel: string | null; countedChannel: string | null; createdAt: string } | undefined;
  /** every visitor the erasure covers (a lead's linked ones and `lead:<id>`, or the one visitor) */
  visitorIds: string[];
  leadId: string | undefined;
}

/** Reads what an erasure of a lead or a visitor covers (erasure module). */
export async function identitySubject(
  trx: Trx,
  project: ProjectRef,
  subject: "lead" | "visitor",
  id: string,
): Promise<IdentitySubject> {
  if (subject === "visitor") return { lead: undefined, visitorIds: [id], leadId: undefined };
  const row = await trx
    .selectFrom("identity_leads")
    .select(["id", "channel", "counted_channel", "created_at"])
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
  const linked = await trx
    .selectFrom("identity_visitors")
    .select("visitor_id")
    .where("project_id", "=", project.id)
    .where("lead_id", "=", id)
    .execute();
  return {
    lead: row && {
      id: row.id,
      channel: row.channel,
      countedChannel: row.counted_channel,
      createdAt: row.created_at,
    },
    // A server event with only a lead id is stored under the visitor `lead:<id>` (events module).
    visitorIds: [...linked.map((r) => r.visitor_id), `lead:${id}`],
    leadId: id,
  };
}

/** Deletes identity's rows of the visitors (and the lead, if named); returns how many visitors there were. */
export async function deleteIdentityOf(
  trx: Trx,
  project: ProjectRef,
  visitorIds: string[],
  leadId: string | undefined,
): Promise<number> {
  let n = 0;
  for (let i = 0; i < visitorIds.length; i += 400) {
    const r = await trx
      .deleteFrom("identity_visitors")
      .where("project_id", "=", project.id)
      .where("visitor_id", "in", visitorIds.slice(i, i + 400))
      .executeTakeFirst();
    n += Number(r.numDeletedRows);
  }
  if (leadId !== undefined)
    await trx
      .deleteFrom("identity_leads")
      .where("project_id", "=", project.id)
      .where("id", "=", leadId)
      .execute();
  return n;
}
