import type { ServiceDeps } from "../../platform/deps.js";
import { defineJob, exponentialBackoff } from "../../platform/jobs/index.js";
import { RECOMPUTE_JOB, REFRESH_ALL_JOB } from "./schema.js";
import { recomputeAllGoals, recomputeGoals } from "./service.js";

/** The goals module's jobs: a project's recompute (after its events) and the hourly refresh. */
export function goalJobs(deps: ServiceDeps) {
  return [
    defineJob(RECOMPUTE_JOB, {
      retry: exponentialBackoff(5, 2),
      run: (p) => recomputeGoals(deps, { id: p.projectId, workspaceId: p.workspaceId }),
    }),
    defineJob(REFRESH_ALL_JOB, { retry: [], run: () => recomputeAllGoals(deps) }),
  ];
}
