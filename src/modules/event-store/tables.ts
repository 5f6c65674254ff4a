/** Row shapes of the event store's tables (migration 0300_events). */
export interface EventTable {
  id: string;
  project_id: string;
  visitor_id: string;
  lead_id: string | null;
  type: string;
  url: string;
  referrer: string | null;
  /** JSON object */
  data: string;
  /** event time, epoch ms */
  ts: number;
  received_at: number;
  session_id: string;
  channel: string;
  source: string | null;
  /** 0/1: bot user agent; stored, left out of analytics */
  is_bot: number;
  /** 0/1: a server event (batch format, server-side sources), not a web visit (migration 0303) */
  is_server: number;
}

/** Per-visitor state behind the writer's session cache; also the visitor's first touch. */
export interface EventVisitorTable {
  project_id: string;
  visitor_id: string;
  first_seen: number;
  first_channel: string;
  first_source: string | null;
  first_landing_page: string;
  session_id: string;
  session_started: number;
  session_channel: string;
  session_source: string | null;
  session_landing_page: string;
  last_seen: number;
}

declare module "../../platform/db/types.js" {
  interface Database {
    events: EventTable;
    event_visitors: EventVisitorTable;
  }
}
