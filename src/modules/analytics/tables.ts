import type { ColumnType } from "kysely";
export interface TouchpointTable {
  project_id: string;
  session_id: string;
  visitor_id: string;
  person_key: string;
  channel: string;
  ts: number;
  /** the session's dimensions (migration 0391; null before it, or unknown) */
  source: string | null;
  campaign: string | null;
  landing_page: string | null;
  referrer_domain: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
}

/** Per project × dimension × UTC day × key (migration 0391). */
export interface BreakdownDailyTable {
  project_id: string;
  dimension: string;
  day: number;
  key: string;
  visitors_sketch: string;
  conversions: number;
  revenue: number;
  /** PostgreSQL: the writing process's rows (migration 0393); 0 on SQLite. */
  shard: ColumnType<number, number | undefined, number>;
}

export interface BreakdownWeeklyTable {
  project_id: string;
  dimension: string;
  /** Monday-based UTC week number, as analytics_weekly */
  week: number;
  key: string;
  visitors_sketch: string;
  conversions: number;
  revenue: number;
  /** PostgreSQL: the writing process's rows (migration 0393); 0 on SQLite. */
  shard: ColumnType<number, number | undefined, number>;
}

export interface ConversionTable {
  event_id: string;
  project_id: string;
  visitor_id: string;
  person_key: string;
  lead_id: string | null;
  goal_id: string | null;
  type: string;
  revenue: number;
  counted: number;
  channel: string;
  ts: number;
  /** JSON {model: {channel: credit}} as applied to analytics_attribution_daily */
  credits: string | null;
  /** `data.currency` of the event, upper-cased (migration 0398; null when it named none) */
  currency: string | null;
}

export interface AttributionDailyTable {
  project_id: string;
  day: number;
  model: string;
  channel: string;
  credited: number;
  revenue: number;
  /** PostgreSQL: the writing process's rows (migration 0395); 0 on SQLite. */
  shard: ColumnType<number, number | undefined, number>;
}

export interface GoalHitTable {
  project_id: string;
  goal_key: string;
  event_id: string;
  ts: number;
}

export interface DailyRollupTable {
  project_id: string;
  day: number;
  channel: string;
  visitors_sketch: string;
  conversions: number;
  revenue: number;
  leads: number;
  /** PostgreSQL: the writing process's rows (migration 0393); 0 on SQLite. */
  shard: ColumnType<number, number | undefined, number>;
}

export interface WeeklySketchTable {
  project_id: string;
  /** Monday-based UTC week number: floor((day + 3) / 7) */
  week: number;
  channel: string;
  visitors_sketch: string;
  /** PostgreSQL: the writing process's rows (migration 0393); 0 on SQLite. */
  shard: ColumnType<number, number | undefined, number>;
}

/** Who sent which event type on which UTC day (migration 0392): retention's input. */
export interface ActivityTable {
  project_id: string;
  day: number;
  type: string;
  visitor_id: string;
}

export interface AnalyticsLinkTable {
  project_id: string;
  visitor_id: string;
  lead_id: string;
  /** when the link was written (receipt time): the analytics engine's cursor (migration 0361) */
  changed_at: ColumnType<number, number | undefined, number>;
}

/**
 * What changed in rows the analytics engines already copied, for each process's engine to apply
 * (migration 0361; a day at most). `subject` is JSON, by kind:
 * - `erase`: `{visitors: string[], lead?: string}`, whose rows the engines remove;
 * - `recount`: `{events: string[]}`, whose conversions and goal hits the engines take again;
 * - `goal-dropped`: `{goal: string}`, a deleted goal whose hits the engines drop.
 */
export interface EngineChangeTable {
  id: string;
  project_id: string;
  kind: "erase" | "recount" | "goal-dropped";
  subject: string;
  at: number;
}

declare module "../../platform/db/types.js" {
  interface Database {
    analytics_touchpoints: TouchpointTable;
    analytics_conversions: ConversionTable;
    analytics_goal_hits: GoalHitTable;
    analytics_daily: DailyRollupTable;
    analytics_weekly: WeeklySketchTable;
    analytics_links: AnalyticsLinkTable;
    analytics_engine_changes: EngineChangeTable;
    analytics_activity: ActivityTable;
    analytics_attribution_daily: AttributionDailyTable;
    analytics_breakdown_daily: BreakdownDailyTable;
    analytics_breakdown_weekly: BreakdownWeeklyTable;
  }
}

/** A saved cohort (migration 0396): its definition as JSON. */
export interface CohortTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  definition: string;
  /** 1: flag targeting counts lead properties a public key wrote (migration 0399) */
  trust_browser_properties: number;
  created_at: string;
  updated_at: string;
}

/** A dated note on the project's charts (migration 0397). */
export interface AnnotationTable {
  id: string;
  project_id: string;
  /** YYYY-MM-DD (UTC day) */
  date: string;
  /** the last day of the annotated period, inclusive; null for a single day */
  end_date: string | null;
  text: string;
  /** `apiKey:<key id>` or `user:<user id>` */
  created_by: string;
  created_at: string;
  updated_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    analytics_cohorts: CohortTable;
    analytics_annotations: AnnotationTable;
  }
}
