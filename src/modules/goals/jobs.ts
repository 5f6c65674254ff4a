import { defineJob, exponentialBackoff } from "../../platform/jobs.js";
import { RECOMPUTE_JOB, REFRESH_ALL_JOB } from "./schema.js";
import { recomputeAllGoals, recomputeGoals } from "./service.js";

/** The goals module's jobs: a project's recompute (after its events) and the hourly refresh. */
export function goalJobs() {
  return [
    defineJob(RECOMPUTE_JOB, {
      retry: exponentialBackoff(5, 2),
      run: (p, ctx) =>
        recomputeGoals(ctx.registry, ctx.handle.db, { id: p.projectId, workspaceId: p.workspaceId }),
    }),
    defineJob(REFRESH_ALL_JOB, {
      retry: [],
      run: (_p, ctx) => recomputeAllGoals(ctx.registry, ctx.handle.db),
    }),
  ];
}
