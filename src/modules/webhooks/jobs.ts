import type { ServiceDeps } from "../../platform/deps.js";
import { defineJob } from "../../platform/jobs/index.js";
import { WEBHOOK_RETRY_SECONDS, deliverOnce } from "./delivery.js";
import { DELIVER_JOB } from "./schema.js";

/** The webhooks module's job: one signed delivery attempt, retried on Svix's schedule. */
export function webhookJobs(deps: Pick<ServiceDeps, "db" | "secrets">) {
  return [
    defineJob(DELIVER_JOB, {
      retry: WEBHOOK_RETRY_SECONDS,
      run: (payload, ctx) => deliverOnce(deps, payload, ctx),
    }),
  ];
}
