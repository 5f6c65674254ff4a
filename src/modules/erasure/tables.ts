/** One per erased person (migration 0353): no personal data, only a hash of the subject's id. */
export interface ErasureTable {
  id: string;
  project_id: string;
  workspace_id: string;
  subject: "lead" | "visitor";
  subject_hash: string;
  /** `apiKey:<key id>` or `user:<user id>` */
  requested_by: string;
  /** JSON: what was removed, as counts */
  counts: string;
  created_at: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    identity_erasures: ErasureTable;
  }
}
