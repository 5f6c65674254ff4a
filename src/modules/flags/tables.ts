export type FlagValueType = "boolean" | "string" | "number" | "json";
/** How a flag's rollouts place users: GrowthBook's FNV-1a or PostHog's SHA-1. */
export type FlagHashing = "growthbook" | "posthog";

export interface FlagTable {
  id: string;
  workspace_id: string;
  project_id: string;
  key: string;
  description: string | null;
  value_type: FlagValueType;
  /** JSON of the default value. */
  default_value: string;
  /** 0 = the kill switch is thrown: everyone gets the default. */
  enabled: number;
  /** JSON: the stored rules (schema.ts `Rule`), in evaluation order. */
  rules: string;
  /** JSON: string[] */
  tags: string;
  /** absent (rows written before it existed, or inserts not naming it): "growthbook" */
  hashing?: FlagHashing;
  created_at: string;
  updated_at: string;
}

export interface FlagHistoryTable {
  id: string;
  project_id: string;
  flag_id: string;
  flag_key: string;
  action: "created" | "updated" | "deleted" | "shipped";
  /** JSON: {type: "user" | "apiKey", id, email?} */
  actor: string;
  at: string;
  /** JSON of the flag before the change; null when created. */
  before: string | null;
  /** JSON of the flag after the change; null when deleted. */
  after: string | null;
}

/**
 * One row per project that has had a flag change: the SDK connection's settings and the revision
 * every change bumps first in its transaction (it serializes a project's flag changes, and
 * `revised_at` only ever grows, so the payload's `dateUpdated` changes with every change).
 */
export interface FlagSettingsTable {
  project_id: string;
  remote_eval_only: number;
  revision: number;
  revised_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    flags: FlagTable;
    flag_history: FlagHistoryTable;
    flag_settings: FlagSettingsTable;
  }
}
