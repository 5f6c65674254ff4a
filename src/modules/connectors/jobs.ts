import { defineJob, exponentialBackoff } from "../../platform/jobs/index.js";
import { FORWARD_LEADS_JOB, FORWARD_REVENUE_JOB, SYNC_ALL_JOB, SYNC_JOB } from "./schema.js";
import { SYNC_RETRY, runSync, syncAllProjects } from "./sync.js";
import { forwardLeads, forwardRevenue } from "./sync-results.js";
import type { ServiceDeps } from "../../platform/deps.js";

/** The connectors module's jobs: syncs, the periodic sweep, and the hand-off of pulled revenue and leads. */
export function connectorJobs(deps: ServiceDeps) {
  const ref = (p: { projectId: string; workspaceId: string }) => ({
    id: p.projectId,
    workspaceId: p.workspaceId,
  });
  return [
    defineJob(SYNC_JOB, { retry: SYNC_RETRY, run: (payload, ctx) => runSync(deps, payload, ctx) }),
    defineJob(SYNC_ALL_JOB, { retry: [60], run: () => syncAllProjects(deps) }),
    defineJob(FORWARD_REVENUE_JOB, {
      retry: exponentialBackoff(8, 5),
      run: (p) => forwardRevenue(deps, ref(p), p.type),
    }),
    defineJob(FORWARD_LEADS_JOB, {
      retry: exponentialBackoff(8, 5),
      run: (p) => forwardLeads(deps, ref(p), p.type, p.leads),
    }),
  ];
}
