import type { ServiceDeps } from "../../platform/deps.js";
import { defineJob, exponentialBackoff } from "../../platform/jobs/index.js";
import { checkAllAlerts } from "./check.js";
import { notifyFiring } from "./notify.js";
import { CHECK_ALL_JOB, NOTIFY_JOB } from "./schema.js";

/** The alerts module's jobs: the scheduled sweep, and mailing a firing. */
export function alertJobs(deps: ServiceDeps) {
  return [
    defineJob(CHECK_ALL_JOB, { retry: [60], run: () => checkAllAlerts(deps) }),
    defineJob(NOTIFY_JOB, { retry: exponentialBackoff(8, 5), run: (p) => notifyFiring(deps, p.firingId) }),
  ];
}
