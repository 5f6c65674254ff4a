import type { ServiceDeps } from "../../platform/deps.js";
import { defineJob, exponentialBackoff } from "../../platform/jobs/index.js";
import { checkAllSubscriptions, sendSubscription } from "./subscriptions-send.js";
import { SUBSCRIPTIONS_CHECK_JOB, SUBSCRIPTION_SEND_JOB } from "./subscriptions-schema.js";

/** The insights module's jobs: the subscriptions' sweep, and computing and mailing one send. */
export function insightJobs(deps: ServiceDeps) {
  return [
    defineJob(SUBSCRIPTIONS_CHECK_JOB, { retry: [60], run: () => checkAllSubscriptions(deps) }),
    defineJob(SUBSCRIPTION_SEND_JOB, {
      retry: exponentialBackoff(8, 5),
      run: (p) => sendSubscription(deps, p.sendId),
    }),
  ];
}
