import { defineJob, exponentialBackoff } from "../../platform/jobs.js";
import { ensureEventPartitions } from "./partitions.js";
import { PARTITIONS_JOB } from "./schema.js";

/** The events module's job: the daily look ahead that creates next months' partitions (PostgreSQL). */
export function eventJobs() {
  return [
    defineJob(PARTITIONS_JOB, {
      retry: exponentialBackoff(5, 60),
      run: async (_payload, ctx) => {
        const created = await ensureEventPartitions(ctx.handle.db);
        if (created.length > 0) ctx.log.info({ partitions: created }, "event partitions created");
      },
    }),
  ];
}
