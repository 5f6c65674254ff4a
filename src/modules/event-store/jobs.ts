import { defineJob, exponentialBackoff } from "../../platform/jobs/index.js";
import { expireMessageIds } from "./claims/claims-store.js";
import { MESSAGE_IDS_EXPIRY_JOB, PARTITIONS_JOB } from "./schema.js";
import { ensureEventPartitions } from "./store/partitions.js";

/**
 * The event store's jobs: the daily look ahead that creates next months' partitions
 * (PostgreSQL), and the hourly expiry of Segment messageIds past their 24 hours.
 */
export function eventStoreJobs() {
  return [
    defineJob(MESSAGE_IDS_EXPIRY_JOB, {
      retry: exponentialBackoff(5, 60),
      run: async (_payload, ctx) => {
        await expireMessageIds(ctx.handle.db);
      },
    }),
    defineJob(PARTITIONS_JOB, {
      retry: exponentialBackoff(5, 60),
      run: async (_payload, ctx) => {
        const created = await ensureEventPartitions(ctx.handle.db);
        if (created.length > 0) ctx.log.info({ partitions: created }, "event partitions created");
      },
    }),
  ];
}
