import { sql } from "kysely";
import type { Db } from "../../../platform/db/index.js";
import { SESSION_DIMENSIONS } from "../ingest/dimensions.js";
import "../tables.js";
import { eventsByIds } from "../../event-store/service.js";
import { CONVERSION_COLUMNS, HIT_COLUMNS } from "./ddl.js";
import { withWebSessions } from "./visits.js";

/**
 * What the copy reads from analytics' own tables in the durable store, beside the events: the
 * sessions a page of events started, the conversions and goal hits recorded for its events, and
 * links written since a time. Lookups go by key in chunks, so a page costs a few indexed reads.
 */

const CHUNK = 500;

export type Row = Record<string, unknown>;

/** The touchpoints (session starts) of the given sessions, per project. */
export async function touchpointsOf(store: Db, sessions: Map<string, Set<string>>): Promise<Row[]> {
  const out: Row[] = [];
  for (const [projectId, ids] of sessions) {
    const list = [...ids];
    for (let i = 0; i < list.length; i += CHUNK) {
      const found = await store
        .selectFrom("analytics_touchpoints")
        .select(["project_id", "session_id", "visitor_id", "channel", "ts", ...SESSION_DIMENSIONS])
        .where("project_id", "=", projectId)
        .where("session_id", "in", list.slice(i, i + CHUNK))
        .execute();
      out.push(...found);
    }
  }
  return out;
}

/** The conversion rows and goal hits recorded for the given events (any project's). */
export async function recordsOfEvents(
  store: Db,
  eventIds: string[],
): Promise<{ conversions: Row[]; hits: Row[] }> {
  const conversions: Row[] = [];
  const hits: Row[] = [];
  for (let i = 0; i < eventIds.length; i += CHUNK) {
    const ids = eventIds.slice(i, i + CHUNK);
    conversions.push(
      ...(await store
        .selectFrom("analytics_conversions")
        .select(CONVERSION_COLUMNS)
        .where("event_id", "in", ids)
        .execute()),
    );
    hits.push(
      ...(await store
        .selectFrom("analytics_goal_hits")
        .select(HIT_COLUMNS)
        .where("event_id", "in", ids)
        .execute()),
    );
  }
  return { conversions, hits };
}

/**
 * A recount's rows: its conversions with their events' web sessions (visits.ts; read from the store,
 * as the copy may not hold the events yet), and its goal hits.
 */
export async function recountRecords(
  store: Db,
  eventIds: string[],
): Promise<{ conversions: Row[]; hits: Row[] }> {
  const { conversions, hits } = await recordsOfEvents(store, eventIds);
  const events = await eventsByIds(
    store,
    conversions.map((c) => String(c.event_id)),
  );
  return { conversions: withWebSessions(conversions, events), hits };
}

export interface LinkKey {
  changedAt: number;
  projectId: string;
  visitorId: string;
}

/** A page of links written at or after `from`, in (time, project, visitor) order after `after`. */
export async function linksPage(
  store: Db,
  from: number,
  after: LinkKey | null,
  limit: number,
): Promise<Row[]> {
  let q = store
    .selectFrom("analytics_links")
    .select(["project_id", "visitor_id", "lead_id", "changed_at"])
    .where("changed_at", ">=", from);
  if (after)
    q = q.where(
      sql<boolean>`(changed_at, project_id, visitor_id) > (${after.changedAt}, ${after.projectId}, ${after.visitorId})`,
    );
  return q.orderBy("changed_at").orderBy("project_id").orderBy("visitor_id").limit(limit).execute();
}
