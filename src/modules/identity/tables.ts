export interface IdentityVisitorTable {
  project_id: string;
  visitor_id: string;
  workspace_id: string;
  lead_id: string | null;
  link_source: string | null;
  linked_at: string | null;
  /** epoch ms */
  first_seen: number;
  last_seen: number;
  channel: string | null;
  source: string | null;
  landing_page: string | null;
  /** an anonymous visitor's properties (JSON object; migration 0354), merged into its lead on link */
  properties: string | null;
  /** names among `properties` a public key wrote (JSON array, null when none; migration 0355) */
  browser_properties: string | null;
}

export interface IdentityLeadTable {
  id: string;
  project_id: string;
  workspace_id: string;
  /** lower-cased and trimmed; null for a lead created by id (migration 0351) */
  email: string | null;
  name: string | null;
  source: string;
  /** JSON object */
  properties: string;
  /**
   * Names of the properties whose value a public key wrote (JSON array, null when none; migration
   * 0355). Flag targeting leaves them out; a server's write of a name takes it off.
   */
  browser_properties: string | null;
  first_seen: number | null;
  channel: string | null;
  attr_source: string | null;
  landing_page: string | null;
  /** the daily rollup row the lead was counted in at creation (migration 0353; null before it) */
  counted_channel: string | null;
  created_at: string;
  updated_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    identity_visitors: IdentityVisitorTable;
    identity_leads: IdentityLeadTable;
  }
}
