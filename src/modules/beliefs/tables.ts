import type { EvidenceMethodT } from "./schema.js";

export interface BeliefTable {
  id: string;
  project_id: string;
  statement: string;
  confidence: number;
  tags: string;
  created_at: string;
  updated_at: string;
}
export interface BeliefEvidenceTable {
  id: string;
  belief_id: string;
  type: "experiment" | "observation" | "external";
  experiment_id: string | null;
  delta: number;
  sample_size: number | null;
  /** null for entries written before methods were recorded */
  method: EvidenceMethodT | null;
  confidence_before: number;
  confidence_after: number;
  timestamp: string;
}

declare module "../../platform/db/types.js" {
  interface Database {
    beliefs: BeliefTable;
    belief_evidence: BeliefEvidenceTable;
  }
}
