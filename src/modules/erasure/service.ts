import { creationTime } from "../../platform/creation-time.js";
import { createHash } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { notFound } from "../../platform/errors.js";
import { eraseAnalyticsOf, rebuildVisitorSketches, takeBackLeadCreated } from "../analytics/service.js";
import { withIngestPaused } from "../event-store/service.js";
import { eraseExposuresOf } from "../experiments/service.js";
import { eraseDeliveriesOf } from "../webhooks/service.js";
import { eraseServiceEventsAbout } from "../../platform/jobs/index.js";
import { newestFirstFrom, pageOf } from "../../platform/cursor.js";
import { deleteIdentityOf, identitySubject } from "../identity/service.js";
import type { Erasure, ErasureList, ErasureListQuery } from "./schema.js";
import { sqliteConnectionOf } from "./store.js";
import type { ErasureTable } from "./tables.js";
import "./tables.js";

export type ErasureT = Static<typeof Erasure>;
export type Subject = ErasureT["subject"];

/** What is kept to find a repeat: a hash of the project, the kind of subject and its id. */
const subjectHash = (projectId: string, subject: Subject, id: string): string =>
  createHash("sha256").update(`${projectId}\u0000${subject}\u0000${id}`).digest("hex");

/**
 * Erases a person: a lead (with every visitor linked to it and events sent with its id) or one
 * visitor (a lead it was linked to stays, with its other visitors). Events, session state,
 * journeys, links, properties, conversions, goal hits and experiment exposures go; counters are
 * taken back out of the rollups and the visitor sketches of the affected weeks are rebuilt from
 * what remains. All in one transaction while no events are written, recorded without personal
 * data. A repeat answers the first erasure's record (`repeated: true`); a subject never seen is 404.
 */
export async function erasePerson(
  deps: ServiceDeps,
  project: ProjectRef,
  subject: Subject,
  id: string,
  requestedBy: string,
): Promise<ErasureT> {
  const hash = subjectHash(project.id, subject, id);
  return withIngestPaused(deps, async (trx, eraseEvents) => {
    const done = await trx
      .selectFrom("identity_erasures")
      .selectAll()
      .where("project_id", "=", project.id)
      .where("subject", "=", subject)
      .where("subject_hash", "=", hash)
      .executeTakeFirst();
    if (done) return { ...toErasure(done), repeated: true };

    const { lead, visitorIds, leadId } = await identitySubject(trx, project, subject, id);

    const events = await eraseEvents(project.id, { visitorIds, leadId });
    const analytics = await eraseAnalyticsOf(
      trx,
      project,
      { visitorIds, leadId, eventIds: events.ids },
      sqliteConnectionOf(deps.dbHandle),
    );
    const exposures = await eraseExposuresOf(trx, project, visitorIds);
    const visitors = await deleteIdentityOf(trx, project, visitorIds, leadId);
    const found =
      lead !== undefined ||
      events.events + analytics.sessions + analytics.conversions + exposures + visitors > 0;
    // Nothing was there: the transaction rolls back, and nothing is recorded.
    if (!found) throw notFound(subject === "lead" ? "lead" : "visitor", id);
    await rebuildVisitorSketches(trx, project.id, [...events.days, ...analytics.days]);
    if (lead)
      await takeBackLeadCreated(trx, project, {
        countedChannel: lead.countedChannel ?? lead.channel,
        createdAt: Date.parse(lead.createdAt),
      });
    // lead.created / lead.updated carried the lead's email and properties, and so did the webhook
    // bodies made from them.
    const notices =
      leadId === undefined ? [] : await eraseServiceEventsAbout(trx, project.id, "lead.", leadId);
    const deliveries = await eraseDeliveriesOf(trx, notices);
    const row: ErasureTable = {
      id: newId("era"),
      project_id: project.id,
      workspace_id: project.workspaceId,
      subject,
      subject_hash: hash,
      requested_by: requestedBy,
      counts: JSON.stringify({
        events: events.events,
        visitors,
        sessions: analytics.sessions,
        conversions: analytics.conversions,
        exposures,
        notifications: notices.length,
        webhookDeliveries: deliveries,
      }),
      created_at: creationTime(),
    };
    await trx.insertInto("identity_erasures").values(row).execute();
    return { ...toErasure(row), repeated: false };
  });
}

function toErasure(r: ErasureTable): ErasureT {
  const [kind, by] = r.requested_by.split(":", 2) as ["apiKey" | "user", string];
  return {
    id: r.id,
    subject: r.subject,
    erasedAt: r.created_at,
    erasedBy: { kind, id: by },
    removed: JSON.parse(r.counts),
    repeated: false,
  };
}

/** The project's erasures, newest first, a keyset page at a time. */
export async function listErasures(
  db: DbOrTrx,
  project: ProjectRef,
  query: Static<typeof ErasureListQuery>,
): Promise<Static<typeof ErasureList>> {
  const limit = query.limit ?? 50;
  const q = db.selectFrom("identity_erasures").selectAll().where("project_id", "=", project.id);
  const { page, nextCursor } = pageOf(await newestFirstFrom(q, query.cursor, limit).execute(), limit);
  return { items: page.map(toErasure), nextCursor };
}
