import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { notFound } from "../../platform/errors.js";
import { firstTouchForVisitors, listEventsForVisitors } from "../event-store/service.js";
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
 * order, first/last seen over them (the event store's per-visitor state), and the lead's first
 * touch. A visitor identity never heard of and with no events is 404.
 */
export async function getJourney(db: DbOrTrx, project: ProjectRef, visitorId: string): Promise<Journey> {
  const visitor = await db
    .selectFrom("identity_visitors")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .executeTakeFirst();
  const lead = visitor?.lead_id ? await findLead(db, project, visitor.lead_id) : undefined;
  const members = lead
    ? (
        await db
          .selectFrom("identity_visitors")
          .select(["visitor_id", "linked_at"])
          .where("project_id", "=", project.id)
          .where("lead_id", "=", lead.id)
          .orderBy("linked_at")
          .execute()
      ).map((m) => m.visitor_id)
    : [visitorId];
  const touches = await firstTouchForVisitors(db, project, members);
  const events = await listEventsForVisitors(db, project, members, JOURNEY_EVENT_LIMIT);
  // A visitor seen only in server events has events but no first touch (no web session).
  if (!visitor && touches.length === 0 && events.length === 0) throw notFound("visitor", visitorId);
  // Linked before any event: the link time is all identity knows.
  const known = visitor?.linked_at ? Date.parse(visitor.linked_at) : Date.now();
  const first = touches[0];
  const firstEvent = events[0]?.timestamp;
  const lastEvent = events[events.length - 1]?.timestamp;
  const attribution: Attribution =
    lead?.channel != null
      ? { channel: lead.channel, source: lead.attr_source, landingPage: lead.landing_page }
      : first
        ? { channel: first.channel, source: first.source, landingPage: first.landingPage }
        : { channel: null, source: null, landingPage: null };
  return {
    visitorId,
    leadId: lead?.id ?? null,
    visitorIds: members,
    firstSeen: iso(Math.min(first?.firstSeen ?? Number.POSITIVE_INFINITY, firstEvent ?? known)),
    lastSeen: iso(Math.max(...touches.map((t) => t.lastSeen), lastEvent ?? known)),
    events: events.map((e) => ({ type: e.type, url: e.url, timestamp: iso(e.timestamp) })),
    attribution,
  };
}
