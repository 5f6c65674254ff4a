/** Row shapes of the Segment API's tables (migration 0310_segment_message_ids). */

/** PostgreSQL: a stored messageId. */
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
}

declare module "../../../platform/db/types.js" {
  interface Database {
    segment_message_ids: SegmentMessageIdTable;
    segment_message_log: SegmentMessageLogTable;
  }
}
