import type { ServiceDeps } from "../../platform/deps.js";
import { defineJob, exponentialBackoff } from "../../platform/jobs/index.js";
import { CONVERSION_RECOMPUTE_JOB } from "../goals/service.js";
import { ENGINE_CHANGES_EXPIRY_JOB, expireEngineChanges } from "./engine/changes.js";
import { runConversionRecompute } from "./ingest/goal-recompute.js";

/**
 * The analytics module's jobs: a conversion goal's recount from stored events (queued by the goals
 * module), and the hourly expiry of the engines' change log.
 */
export function analyticsJobs(deps: ServiceDeps) {
  return [
    defineJob(CONVERSION_RECOMPUTE_JOB, {
      retry: exponentialBackoff(5, 2),
      run: (p) => runConversionRecompute(deps, p),
    }),
    defineJob(ENGINE_CHANGES_EXPIRY_JOB, {
      retry: exponentialBackoff(5, 60),
      run: async () => {
        await expireEngineChanges(deps.db);
      },
    }),
  ];
}
