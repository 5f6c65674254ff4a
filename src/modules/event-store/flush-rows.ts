import type { ProjectRef } from "../../platform/auth/principal.js";
import { type CommittedEvent, type EventOrigin, UNATTRIBUTED_CHANNEL } from "../../platform/event-bus.js";
import { timeOrderedId } from "./ids.js";
import type { SessionAssigner, SessionInfo } from "./sessions/sessions.js";

/** An event that passed validation, before the writer adds session and channel. */
export interface IncomingEvent {
  type: string;
  /** empty for an anonymous server event (`ANONYMOUS_VISITOR`, events/validate.ts) */
  visitorId: string;
  leadId: string | null;
  url: string;
  referrer: string | null;
  data: Record<string, unknown>;
  /** `data` serialized once, for storage */
  dataJson: string;
  ts: number;
  /** a crawler's event: the snippet's request User-Agent, a batch event's `context.userAgent` */
  isBot: boolean;
  /** the snippet request's User-Agent (web events only), for the session's device, browser and OS */
  userAgent: string | null;
}

/** One request's events as a flush holds them. */
export interface FlushItem {
  project: ProjectRef;
  events: IncomingEvent[];
  origin: EventOrigin;
  receivedAt: number;
  /** sent with a page's public key (svc_pk_): its `$set` may fill a lead's properties, never overwrite them */
  fromPublicKey?: boolean;
  /**
   * Per event, the key under which it is stored at most once per project (Segment's `messageId`;
   * null: none); undefined for requests without keys (`MessageClaims`, claims/dedup.ts).
   */
  messageIds: (string | null)[] | undefined;
}

/** What a server event gets in place of a session (one shared object, nothing per event). */
const SERVER_SESSION: SessionInfo = {
  sessionId: "",
  channel: UNATTRIBUTED_CHANNEL as SessionInfo["channel"],
  source: null,
  started: false,
};

/**
 * A flush's rows: the column values of all of them one after another (in `COLUMNS` order,
 * store/rows.ts; inserts bind slices of it directly), and the events as processors receive them.
 * Sessions are asked for in the order `pendingOf` (sessions/session-step.ts) lists the browser events.
 */
export function flushRows(
  items: readonly FlushItem[],
  sessions: SessionAssigner,
): { values: unknown[]; committed: CommittedEvent[] } {
  const values: unknown[] = [];
  const committed: CommittedEvent[] = [];
  for (const it of items) {
    const origin = it.origin;
    const server = origin === "server" ? 1 : 0;
    const projectId = it.project.id;
    const workspaceId = it.project.workspaceId;
    for (const e of it.events) {
      // Server events never start or extend a session, nor set a first touch.
      const s = server ? SERVER_SESSION : sessions.assign(projectId, e.visitorId, e.ts, e.url, e.referrer);
      const id = timeOrderedId("ev", it.receivedAt);
      values.push(
        id,
        projectId,
        e.visitorId,
        e.leadId,
        e.type,
        e.url,
        e.referrer,
        e.dataJson,
        e.ts,
        it.receivedAt,
        s.sessionId,
        s.channel,
        s.source,
        e.isBot ? 1 : 0,
        server,
      );
      committed.push({
        id,
        workspaceId,
        projectId,
        visitorId: e.visitorId,
        leadId: e.leadId,
        type: e.type,
        url: e.url,
        data: e.data,
        referrer: e.referrer,
        timestamp: e.ts,
        sessionId: s.sessionId,
        channel: s.channel,
        source: s.source,
        sessionStarted: s.started,
        userAgent: e.userAgent,
        isBot: e.isBot,
        origin,
        fromPublicKey: it.fromPublicKey === true,
      });
    }
  }
  return { values, committed };
}
