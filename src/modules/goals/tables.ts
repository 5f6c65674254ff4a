import type { GoalStatus } from "./schema.js";

export interface GoalTable {
  id: string;
  workspace_id: string;
  project_id: string;
  metric: string;
  target: number;
  current: number;
  deadline: string;
  status: GoalStatus;
  status_manual: number;
  description: string | null;
  unit: string | null;
  reached_at: string | null;
  /** when counting starts, as given (migration 0210; existing goals: created_at) */
  start_date: string;
  created_at: string;
  updated_at: string;
}
export interface ConversionGoalTable {
  id: string;
  project_id: string;
  name: string;
  event_type: string;
  url_pattern: string | null;
  conditions: string | null;
  created_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    goals: GoalTable;
    conversion_goals: ConversionGoalTable;
  }
}
