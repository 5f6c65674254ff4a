/** Tables of the insights module (migrations 0900 and 0901). */
export interface InsightTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  kind: string;
  /** JSON: the report's settings, as checked against the kind's schema */
  settings: string;
  created_at: string;
  updated_at: string;
}

export interface DashboardTable {
  id: string;
  project_id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  /** JSON: DashboardItem[] */
  items: string;
  /** SHA-256 (hex) of the public link's token; null when the dashboard is not shared */
  share_hash: string | null;
  shared_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Migration 0901: a dashboard or an insight mailed on a schedule. */
export interface SubscriptionTable {
  id: string;
  project_id: string;
  workspace_id: string;
  name: string | null;
  /** exactly one of dashboard_id and insight_id is set */
  dashboard_id: string | null;
  insight_id: string | null;
  frequency: string;
  weekday: string | null;
  day_of_month: number | null;
  hour: number;
  /** JSON: string[] (workspace members, lower case) */
  emails: string;
  /** 0/1 */
  enabled: number;
  /** ISO: moments before this are never sent (creation, or the last change of schedule) */
  starts_at: string;
  /** ISO: the scheduled moment of the last send claimed */
  last_period: string | null;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionSendTable {
  id: string;
  subscription_id: string;
  project_id: string;
  /** ISO: the scheduled moment this send is for */
  period: string;
  /** JSON: per recipient, the mail's outcome (null until the send job ran) */
  email_status: string | null;
  /** why nothing could be mailed */
  error: string | null;
  created_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    insights: InsightTable;
    dashboards: DashboardTable;
    subscriptions: SubscriptionTable;
    subscription_sends: SubscriptionSendTable;
  }
}
