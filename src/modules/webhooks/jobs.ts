import type { SecretBox } from "../../platform/crypto.js";
import type { Db } from "../../platform/db/index.js";
import { defineJob } from "../../platform/jobs/index.js";
import { WEBHOOK_RETRY_SECONDS, deliverOnce } from "./delivery.js";
import { DELIVER_JOB } from "./schema.js";

/** The webhooks module's job: one signed delivery attempt, retried on Svix's schedule. */
export function webhookJobs(db: Db, secrets: SecretBox) {
  return [
    defineJob(DELIVER_JOB, {
      retry: WEBHOOK_RETRY_SECONDS,
      run: (payload, ctx) => deliverOnce(db, secrets, payload, ctx),
    }),
  ];
}
