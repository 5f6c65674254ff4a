/** Tables of the alerts module (migration 1000). */
export interface AlertTable {
  id: string;
  project_id: string;
  workspace_id: string;
  name: string;
  /** JSON: AlertQueryT (one trend series, interval day or week) */
  query: string;
  /** JSON: AlertConditionT */
  condition: string;
  /** JSON: AlertNotifyT */
  notify: string;
  /** 0/1 */
  enabled: number;
  /** the start (ISO) of the last complete bucket evaluated; null before the first check */
  last_bucket: string | null;
  /** 0/1: whether that bucket met the condition */
  last_crossed: number | null;
  last_value: number | null;
  last_checked_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AlertFiringTable {
  id: string;
  alert_id: string;
  project_id: string;
  /** the start (ISO) of the bucket that crossed */
  bucket: string;
  value: number | null;
  previous_value: number | null;
  /** JSON: the condition as it was when it fired */
  condition: string;
  /** JSON: per recipient, the mail's outcome (null until the notify job ran) */
  email_status: string | null;
  /** when it fired */
  created_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    alerts: AlertTable;
    alert_firings: AlertFiringTable;
  }
}
