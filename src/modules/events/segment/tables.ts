/** Row shape of the Segment API's table (migration 0310_segment_message_ids). */
export interface SegmentMessageIdTable {
  project_id: string;
  message_id: string;
  /** the receipt time of the request that stored the message (epoch ms, the writer's clock) */
  received_at: number;
}

declare module "../../../platform/db/types.js" {
  interface Database {
    segment_message_ids: SegmentMessageIdTable;
  }
}
