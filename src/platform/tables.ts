export interface JobTable {
  id: string;
  type: string;
  payload: string;
  status: "queued" | "running" | "done" | "failed";
  attempts: number;
  max_attempts: number;
  run_at: number;
  locked_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  unique_key: string | null;
  created_at: string;
  updated_at: string;
}

export interface ServiceEventTable {
  id: string;
  workspace_id: string;
  project_id: string | null;
  type: string;
  data: string;
  created_at: string;
}

declare module "./db/types.js" {
  interface Database {
    jobs: JobTable;
    service_events: ServiceEventTable;
  }
}
