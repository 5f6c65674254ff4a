import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { notFound } from "../../platform/errors.js";
import { listEventsForVisitors } from "../events/service.js";
import { type Attribution, findLead } from "./leads.js";
import "./tables.js";

/** A journey lists at most this many events (the oldest first: the path to conversion). */
export const JOURNEY_EVENT_LIMIT = 1000;

export interface Journey {
  visitorId: string;
  leadId: string | null;
  /** Every visitor of the lead (the merged history), or the visitor alone. */
  visitorIds: string[];
  firstSeen: string;
  lastSeen: string;
  events: { type: string; url: string; timestamp: string }[];
  attribution: Attribution;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The visitor's journey; once linked, the lead's journey: the events of all its visitors in time
 * order (read from the events module), first/last seen over them, and the lead's first touch.
 */
export async function getJourney(db: DbOrTrx, project: ProjectRef, visitorId: string): Promise<Journey> {
  const visitor = await db
    .selectFrom("identity_visitors")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .executeTakeFirst();
  if (!visitor) throw notFound("visitor", visitorId);
  const lead = visitor.lead_id ? await findLead(db, project, visitor.lead_id) : undefined;
  const members = lead
    ? await db
        .selectFrom("identity_visitors")
        .selectAll()
        .where("project_id", "=", project.id)
        .where("lead_id", "=", lead.id)
        .orderBy("first_seen")
        .execute()
    : [visitor];
  // Placeholder rows (linked before any event) only count when no member has events yet.
  const seen = members.some((m) => m.channel !== null) ? members.filter((m) => m.channel !== null) : members;
  const events = await listEventsForVisitors(
    db,
    project,
    members.map((m) => m.visitor_id),
    JOURNEY_EVENT_LIMIT,
  );
  return {
    visitorId,
    leadId: lead?.id ?? null,
    visitorIds: members.map((m) => m.visitor_id),
    firstSeen: iso(Math.min(...seen.map((m) => Number(m.first_seen)))),
    lastSeen: iso(Math.max(...seen.map((m) => Number(m.last_seen)))),
    events: events.map((e) => ({ type: e.type, url: e.url, timestamp: iso(e.timestamp) })),
    attribution: lead
      ? { channel: lead.channel, source: lead.attr_source, landingPage: lead.landing_page }
      : { channel: visitor.channel, source: visitor.source, landingPage: visitor.landing_page },
  };
}
