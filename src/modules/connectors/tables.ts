export interface ConnectorTable {
  id: string;
  workspace_id: string;
  project_id: string;
  type: string;
  status: string;
  account_id: string | null;
  account_name: string | null;
  credentials: string;
  cursor: string;
  summary: string;
  last_sync: string | null;
  last_error: string | null;
  connected_at: string;
  updated_at: string;
}
export interface ConnectorOauthStateTable {
  nonce: string;
  workspace_id: string;
  project_id: string;
  user_id: string;
  /** the session that started the flow (null: a flow started before this column existed, which cannot complete) */
  session_id: string | null;
  type: string;
  code_verifier: string | null;
  expires_at: number;
  used_at: number | null;
}
export interface ConnectorSyncTable {
  id: string;
  project_id: string;
  trigger: string;
  created_at: string;
}
export interface ConnectorSyncRunTable {
  sync_id: string;
  project_id: string;
  connector_id: string;
  connector_type: string;
  status: string;
  rows: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}
export interface ConnectorDailyTable {
  project_id: string;
  connector_type: string;
  campaign_id: string;
  campaign_name: string;
  day: string;
  spend: number;
  impressions: number;
  clicks: number;
  conversions: number;
  revenue: number;
  sessions: number;
  updated_at: string;
}
export interface ConnectorRevenueTable {
  project_id: string;
  external_id: string;
  connector_type: string;
  amount: number;
  currency: string;
  occurred_at: number;
  email: string | null;
  ingested: number;
}

declare module "../../platform/db/types.js" {
  interface Database {
    connectors: ConnectorTable;
    connector_oauth_states: ConnectorOauthStateTable;
    connector_syncs: ConnectorSyncTable;
    connector_sync_runs: ConnectorSyncRunTable;
    connector_daily: ConnectorDailyTable;
    connector_revenue: ConnectorRevenueTable;
  }
}
