export type EndpointStatus = "active" | "disabled";
export type DeliveryStatus = "pending" | "succeeded" | "failed";

export interface WebhookEndpointTable {
  id: string;
  workspace_id: string;
  project_id: string;
  url: string;
  /** JSON array of service event types. */
  events: string;
  secret_sealed: string;
  status: EndpointStatus;
  disabled_reason: string | null;
  /** epoch ms of the first failed attempt since the last success; null while healthy. */
  failing_since: number | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** The exact JSON body sent on every attempt. */
  payload: string;
  status: DeliveryStatus;
  /** Bumped by a manual retry; a job of an older generation stops without sending. */
  generation: number;
  attempt_count: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptTable {
  id: string;
  delivery_id: string;
  attempt: number;
  succeeded: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}

export interface WebhookSourceTable {
  workspace_id: string;
  source: string;
  secret_sealed: string;
  updated_at: string;
}

export interface WebhookIncomingEventTable {
  workspace_id: string;
  source: string;
  external_id: string;
  received_at: string;
}

export interface WebhookCrmObjectTable {
  project_id: string;
  object_type: string;
  object_id: string;
  data: string;
  updated_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    webhook_endpoints: WebhookEndpointTable;
    webhook_deliveries: WebhookDeliveryTable;
    webhook_attempts: WebhookAttemptTable;
    webhook_sources: WebhookSourceTable;
    webhook_incoming_events: WebhookIncomingEventTable;
    webhook_crm_objects: WebhookCrmObjectTable;
  }
}
