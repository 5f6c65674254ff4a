import type { Generated } from "kysely";

/** Row shapes of the Segment API's tables (migrations 0310_segment_message_ids, 0311). */

/**
 * PostgreSQL: a stored messageId; `segment_message_ids` holds the secret keys' (servers'),
 * `segment_public_message_ids` the public key's (pages'), so neither suppresses the other's.
 */
export interface SegmentMessageIdTable {
  project_id: string;
  message_id: string;
  /** the receipt time of the request that stored the message (epoch ms, the writer's clock) */
  received_at: number;
}

/** SQLite: the messageIds one request stored (a JSON array), the log its process's memory is rebuilt from. */
export interface SegmentMessageLogTable {
  received_at: number;
  project_id: string;
  message_ids: string;
  /** 1: claimed in the public key's namespace (0311); 0 (the default): the secret keys' */
  from_public: Generated<number>;
}

declare module "../../../platform/db/types.js" {
  interface Database {
    segment_message_ids: SegmentMessageIdTable;
    segment_public_message_ids: SegmentMessageIdTable;
    segment_message_log: SegmentMessageLogTable;
  }
}
