import type { Generated } from "kysely";
/** Tables of the email module (transactional keys, templates, sends, idempotency, suppressions). */
export interface TxKeyTable {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A workspace template; a row whose id is a catalog id overrides the built-in one. */
export interface CommunicationTable {
  workspace_id: string;
  id: string;
  name: string;
  comm_type: "transactional" | "marketing";
  /** JSON: Record<slotId, string>. */
  slots: string;
  /** JSON: Block[]. */
  blocks: string;
  /** JSON: CompiledTemplate, produced once at save time. */
  compiled: string;
  created_at: string;
  updated_at: string;
}

export type SendStatus = "queued" | "sent" | "delivered" | "bounced" | "suppressed" | "failed";

export interface TxSendTable {
  id: string;
  workspace_id: string;
  key_id: string;
  to_addr: string;
  subject: string;
  comm_id: string | null;
  tags: string;
  sandbox: number;
  status: SendStatus;
  message_id: string | null;
  error: string | null;
  idempotency_key: string | null;
  /**
   * The rendered message, sealed with the secret box, kept only while a delivery job still needs it
   * (transient SMTP failure) and erased once the message is delivered or fails for good.
   */
  pending_message: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
}

export interface TxSendEventTable {
  id: Generated<number>;
  send_id: string;
  type: string;
  at: number;
  detail: string | null;
}

export interface TxIdempotencyTable {
  workspace_id: string;
  idem_key: string;
  request_hash: string;
  state: "in_flight" | "final";
  /** The lock is ours until then; a crashed holder's lock is resolved from its send record. */
  locked_until: number;
  send_id: string | null;
  response_status: number | null;
  response_body: string | null;
  expires_at: number;
  created_at: number;
}

export interface TxSuppressionTable {
  workspace_id: string;
  email: string;
  reason: "hard_bounce" | "complaint" | "manual";
  detail: string | null;
  created_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    tx_keys: TxKeyTable;
    communications: CommunicationTable;
    tx_sends: TxSendTable;
    tx_send_events: TxSendEventTable;
    tx_idempotency: TxIdempotencyTable;
    tx_suppressions: TxSuppressionTable;
  }
}
