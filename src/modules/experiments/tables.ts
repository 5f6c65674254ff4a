import type { ColumnType } from "kysely";

export type ExperimentStatus = "draft" | "running" | "paused" | "completed";
export type ExperimentMode = "ab" | "multivariate" | "bandit";

export interface ExperimentTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  status: ExperimentStatus;
  mode: ExperimentMode;
  /** "" when a feature flag runs the experiment (`NO_PAGE`, edit.ts) */
  target_url: string;
  traffic_split: number;
  /** JSON: Array<{name, css?, js?}> */
  variants: string;
  /** JSON: number[] summing to 1 */
  weights: string;
  belief_id: string | null;
  /** JSON: string[]; null = every conversion goal of the project */
  conversion_goal_ids: string | null;
  min_sample_per_variant: number;
  /** 1 once the experiment has been running; variants are frozen from then on. */
  has_run: number;
  /** JSON: {secondary: string[], guardrails: [{goal, worseWhen}]}; null = none. */
  metrics: string | null;
  winner: string | null;
  completion_reason: string | null;
  /** sequential | fixed-horizon | bandit | manual, once completed. */
  decision_method: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExperimentExposureTable {
  experiment_id: string;
  visitor_id: string;
  project_id: string;
  variant: string;
  /** epoch ms */
  exposed_at: number;
  /** epoch ms of the first conversion after exposure */
  converted_at: number | null;
  /** Revenue (data.revenue) of the visitor's conversion-goal events after exposure, any goal. */
  revenue: ColumnType<number, number | undefined, number>;
}

export interface ExperimentVariantStatsTable {
  experiment_id: string;
  variant: string;
  exposures: number;
  conversions: number;
  revenue_sum: ColumnType<number, number | undefined, number>;
  revenue_sum_squares: ColumnType<number, number | undefined, number>;
  /** PostgreSQL: the writing process's rows (migration 0530); 0 on SQLite. */
  shard: ColumnType<number, number | undefined, number>;
}

/** A visitor's first conversion on one of an experiment's secondary or guardrail goals. */
export interface ExperimentGoalConversionTable {
  experiment_id: string;
  visitor_id: string;
  goal_id: string;
  variant: string;
  converted_at: number;
}

export interface ExperimentGoalStatsTable {
  experiment_id: string;
  goal_id: string;
  variant: string;
  conversions: number;
  /** PostgreSQL: the writing process's rows (migration 0530); 0 on SQLite. */
  shard: ColumnType<number, number | undefined, number>;
}

export interface ExperimentWeightsTable {
  experiment_id: string;
  /** Epoch ms. */
  at: number;
  /** JSON array of fractions, in variant order. */
  weights: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    experiment_weights: ExperimentWeightsTable;
    experiments: ExperimentTable;
    experiment_exposures: ExperimentExposureTable;
    experiment_variant_stats: ExperimentVariantStatsTable;
    experiment_goal_conversions: ExperimentGoalConversionTable;
    experiment_goal_stats: ExperimentGoalStatsTable;
  }
}
