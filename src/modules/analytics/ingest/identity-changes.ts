import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { Trx } from "../../../platform/db/index.js";
import { UNATTRIBUTED_CHANNEL } from "../../../platform/event-bus.js";
import { scheduleGoalRecompute } from "../../goals/service.js";
import type { IdentityChange } from "../../identity/service.js";
import { takeBackLeadCreated } from "../erasure.js";
import { personKey } from "../people.js";
import { applyAnalyticsDeltas } from "./delta-store.js";
import { BreakdownDeltas } from "./breakdown-store.js";
import { conversionsOfPerson, creditConversions } from "./credit-store.js";
import { RollupDeltas } from "./rollup-store.js";
import "../tables.js";

/**
 * What analytics derives from identity's changes, in identity's transaction (subscribed with
 * `onIdentityChanges` in module.ts): the daily leads count, and the visitor → lead links it keys
 * touchpoints and conversions by person with. Analytics never reads identity's tables. In the
 * events flush this runs at the end of the identity step, before the analytics step reads the links.
 */
export async function applyIdentityChanges(trx: Trx, changes: IdentityChange[]): Promise<void> {
  for (const c of changes) {
    if (c.kind === "lead-created") await recordLeadCreated(trx, c.project, c);
    else if (c.kind === "visitor-linked") await recordVisitorLinked(trx, c.project, c.visitorId, c.leadId);
    else {
      // Taken back from the day it was counted on, added to the new one, under the same channel.
      await takeBackLeadCreated(trx, c.project, { countedChannel: c.channel, createdAt: c.from });
      await recordLeadCreated(trx, c.project, { channel: c.channel, createdAt: c.to });
    }
  }
}

/**
 * A new lead counts in the daily rollup of its creation day under its first-touch channel, or
 * `unattributed` when it has no web touch yet (created server-side, or before its first visit).
 */
export async function recordLeadCreated(
  trx: Trx,
  project: ProjectRef,
  lead: { channel: string | null; createdAt: number },
): Promise<void> {
  const deltas = new RollupDeltas();
  deltas.get(project.id, lead.createdAt, lead.channel ?? UNATTRIBUTED_CHANNEL).leads++;
  await applyAnalyticsDeltas(trx, deltas, new BreakdownDeltas());
  await scheduleGoalRecompute(trx, project);
}

/** The visitor's sessions and conversions now belong to the lead's journey (merged history). */
async function recordVisitorLinked(
  trx: Trx,
  project: ProjectRef,
  visitorId: string,
  leadId: string,
): Promise<void> {
  await trx
    .insertInto("analytics_links")
    .values({ project_id: project.id, visitor_id: visitorId, lead_id: leadId, changed_at: Date.now() })
    .onConflict((oc) =>
      oc.columns(["project_id", "visitor_id"]).doUpdateSet({ lead_id: leadId, changed_at: Date.now() }),
    )
    .execute();
  const key = personKey(visitorId, leadId);
  await trx
    .updateTable("analytics_conversions")
    .set({ person_key: key, lead_id: leadId })
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .execute();
  // Every conversion of the lead now has the visitor's sessions among its touchpoints.
  await creditConversions(trx, project.id, await conversionsOfPerson(trx, project.id, key));
}
