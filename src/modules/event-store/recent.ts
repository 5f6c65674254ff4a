import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { newestEventRows } from "./store/reads.js";
import "./tables.js";

export interface RecentEvent {
  id: string;
  type: string;
  visitorId: string;
  leadId: string | null;
  url: string;
  referrer: string | null;
  data: Record<string, unknown>;
  /** event time */
  timestamp: string;
  receivedAt: string;
  sessionId: string;
  channel: string;
  source: string | null;
  isBot: boolean;
}

export const DEFAULT_RECENT_EVENTS = 50;
/**
 * A live view reads backwards through the installation's newest stored events (append order:
 * `seq` on SQLite, the time-ordered id on PostgreSQL) and stops after this many rows. Without a
 * (project, time) index — left out on purpose, every index costs the ingest hot path — this bounds
 * the read for a quiet project among busy ones, which then sees only its events inside the window.
 */
export const RECENT_SCAN_ROWS = 100_000;

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** The project's newest events, newest first (bots included and flagged). */
export async function recentEvents(db: DbOrTrx, project: ProjectRef, limit: number): Promise<RecentEvent[]> {
  const rows = await newestEventRows(db, project.id, limit, RECENT_SCAN_ROWS);
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    visitorId: r.visitor_id,
    leadId: r.lead_id,
    url: r.url,
    referrer: r.referrer,
    data: JSON.parse(r.data) as Record<string, unknown>,
    timestamp: iso(r.ts),
    receivedAt: iso(r.received_at),
    sessionId: r.session_id,
    channel: r.channel,
    source: r.source,
    isBot: Number(r.is_bot) === 1,
  }));
}

/**
 * Whether the project has stored any event (bots included: a first visit by a crawler is still
 * proof the snippet is installed). The (project, visitor, time) index answers it at its first row.
 */
export async function projectHasEvents(db: DbOrTrx, project: ProjectRef): Promise<boolean> {
  const row = await db
    .selectFrom("events")
    .select("project_id")
    .where("project_id", "=", project.id)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
