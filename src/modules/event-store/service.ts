import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import type { ServiceDeps } from "../../platform/deps.js";
import type { EventOrigin } from "../../platform/event-bus.js";
import { type ErasedEvents, deleteEventsOf } from "./erasure.js";
import "./tables.js";
import type { IncomingEvent } from "./flush-rows.js";
import { holdEventWrites } from "./store/erasure.js";
import { visitorEventRows } from "./store/reads.js";
import { visitorsWithLastSeen } from "./store/visitor-states.js";
import { type StoredEvent, toStoredEvent } from "./stored.js";
import { writerFor } from "./writer-slot.js";

/** Where a visit came from (channel, source, campaign, referrer host, landing page): analytics reads a session's. */
export { type Acquisition, deriveAcquisition } from "./sessions/channel.js";
export { writerFor };
/** What the writer stores: an event that passed validation, before the writer adds session and channel. */
export type { IncomingEvent } from "./flush-rows.js";

/**
 * Stores validated events through the group-commit writer; resolves after commit. With
 * `messageIds` (one per event, null for none), an event whose key the project stored in the last
 * 24 hours is left out, atomically with the events (claims/dedup.ts).
 */
export function writeEvents(
  deps: ServiceDeps,
  project: ProjectRef,
  events: IncomingEvent[],
  origin: EventOrigin,
  opts: { fromPublicKey?: boolean; messageIds?: (string | null)[] } = {},
): Promise<number> {
  return writerFor(deps).write(project, events, origin, opts);
}

export { type StoredEvent, toStoredEvent } from "./stored.js";

/** Events of the given visitors in time order (oldest first), at most `limit`. */
export async function listEventsForVisitors(
  db: DbOrTrx,
  project: ProjectRef,
  visitorIds: string[],
  limit: number,
): Promise<StoredEvent[]> {
  if (visitorIds.length === 0 || limit <= 0) return [];
  const rows = await visitorEventRows(db, project.id, visitorIds, limit);
  return rows.map(toStoredEvent);
}

/** A visitor's first touch: first session's channel, source and landing page. */
export interface FirstTouch {
  visitorId: string;
  /** epoch ms */
  firstSeen: number;
  /** epoch ms of the latest event */
  lastSeen: number;
  channel: string;
  source: string | null;
  landingPage: string;
}

/** First touch of each given visitor that has events; the earliest of them comes first. */
export async function firstTouchForVisitors(
  db: DbOrTrx,
  project: ProjectRef,
  visitorIds: string[],
): Promise<FirstTouch[]> {
  if (visitorIds.length === 0) return [];
  const rows = await visitorsWithLastSeen(db, project.id, visitorIds)
    .orderBy("v.first_seen", "asc")
    .execute();
  return rows.map((r) => ({
    visitorId: r.visitor_id,
    firstSeen: Number(r.first_seen),
    // the row's last_seen is written at session starts; the events index knows the latest event
    lastSeen: Math.max(Number(r.last_seen), Number(r.events_last_seen ?? 0)),
    channel: r.first_channel,
    source: r.first_source,
    landingPage: r.first_landing_page,
  }));
}

/**
 * Runs `work` in one transaction while no events are written: this process's writer waits for it,
 * and on PostgreSQL every process's flush waits at its insert (a lock on `events` that conflicts
 * only with writes). `eraseEvents` deletes a person's events inside it (erasure.ts).
 */
export function withIngestPaused<T>(
  deps: ServiceDeps,
  work: (
    trx: Trx,
    eraseEvents: (
      projectId: string,
      person: { visitorIds: string[]; leadId?: string },
    ) => Promise<ErasedEvents>,
  ) => Promise<T>,
): Promise<T> {
  return writerFor(deps).exclusive(async (trx, forget) => {
    await holdEventWrites(trx);
    return work(trx, (projectId, person) => deleteEventsOf(trx, projectId, person, forget));
  });
}

/** Reads of many events, page by page (export, sketch rebuilds). */
export {
  EVENT_PAGE_ROWS,
  type ExportRange,
  eventPages,
  eventRowPages,
  latestEvents,
  visitorEventPages,
} from "./store/pages.js";

/** A resumable scan of stored events by type, a page per call (recounts from history). */
export { type ScanPage, type ScannedEvent, eventTypeScanPage, lockStoredEvents } from "./store/scan.js";

/** The committed events in commit order after a cursor: what the analytics engine copies (store/feed.ts). */
export { type FeedCursor, committedEventsAfter, eventsByIds, lateEventIds } from "./store/feed.js";
export { timeOrderedId } from "./ids.js";
/** The stored events' columns in order (what a copy of them appends). */
export { COLUMNS as EVENT_ROW_COLUMNS } from "./store/rows.js";
export type { EventTable } from "./tables.js";

/** The export of stored events (analytics serves it, with the report filter). */
export { type ExportFormat, exportChunks, exportRange } from "./export.js";

/** The project's newest stored events and whether it has any (GET /api/events/recent and /status). */
export { DEFAULT_RECENT_EVENTS, projectHasEvents, recentEvents } from "./recent.js";
