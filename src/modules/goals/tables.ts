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

/** A conversion goal's recount from stored events (migration 0220): the latest revision and its job's progress. */
export interface ConversionGoalRecomputeTable {
  goal_id: string;
  project_id: string;
  /** raised by every change that needs a recount; a job of an older revision stops */
  revision: number;
  /** 1: the goal was deleted, its conversions are being taken out */
  removing: number;
  state: "queued" | "running" | "done";
  /** keyset position in the events scan (the events module's page key, as text); null before the first page */
  cursor: string | null;
  /** JSON array: the event types the scan reads, fixed by its first page */
  types: string | null;
  /** events of those types read so far */
  processed: number;
  /** share of stored events scanned, 0–1 */
  progress: number;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    goals: GoalTable;
    conversion_goals: ConversionGoalTable;
    conversion_goal_recomputes: ConversionGoalRecomputeTable;
  }
}
