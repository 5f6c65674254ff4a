/** Tables of the insights module (migration 0900). */
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

declare module "../../platform/db/types.js" {
  interface Database {
    insights: InsightTable;
    dashboards: DashboardTable;
  }
}
