import type { EventOrigin } from "../../platform/event-bus.js";
import type { EventTable } from "./tables.js";

/** A stored event as other modules read it. */
export interface StoredEvent {
  id: string;
  visitorId: string;
  leadId: string | null;
  type: string;
  url: string;
  referrer: string | null;
  data: Record<string, unknown>;
  /** epoch ms */
  timestamp: number;
  sessionId: string;
  channel: string;
  source: string | null;
  isBot: boolean;
  origin: EventOrigin;
}

/** A row of `events` (either driver's number types) as other modules read it. */
export function toStoredEvent(r: EventTable): StoredEvent {
  return {
    id: r.id,
    visitorId: r.visitor_id,
    leadId: r.lead_id,
    type: r.type,
    url: r.url,
    referrer: r.referrer,
    data: JSON.parse(r.data) as Record<string, unknown>,
    timestamp: Number(r.ts),
    sessionId: r.session_id,
    channel: r.channel,
    source: r.source,
    isBot: Number(r.is_bot) === 1,
    origin: Number(r.is_server) === 1 ? "server" : "web",
  };
}
