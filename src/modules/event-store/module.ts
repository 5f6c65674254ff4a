import type { LiftModule } from "../../platform/module.js";
import { EXPIRE_EVERY_MS } from "./claims/dedup.js";
import { eventStoreJobs } from "./jobs.js";
import { MESSAGE_IDS_EXPIRY_JOB, PARTITIONS_JOB } from "./schema.js";
import { PARTITIONS_EVERY_MS, ensureEventPartitions } from "./store/partitions.js";

/**
 * How events are stored and read back: the group-commit writer, its session step, the message-id
 * claims and the event store (SQLite or PostgreSQL). No routes: `events` ingests through it, other
 * modules read stored events through its service.
 */
export const eventStoreModule: LiftModule = {
  name: "event-store",
  async register(app) {
    for (const job of eventStoreJobs()) app.jobs.define(job);
    // PostgreSQL: this month's and the next ones' partitions exist before the first insert, even
    // when the daily job has not run for a while (a database restored from an old backup).
    await ensureEventPartitions(app.db);
    app.worker.addSchedule(PARTITIONS_JOB, PARTITIONS_EVERY_MS);
    app.worker.addSchedule(MESSAGE_IDS_EXPIRY_JOB, EXPIRE_EVERY_MS);
  },
};
