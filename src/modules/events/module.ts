import { stateOf } from "../../platform/deps.js";
import { GEO } from "../../platform/geo.js";
import type { LiftModule } from "../../platform/module.js";
import { eventJobs } from "./jobs.js";
import { PARTITIONS_EVERY_MS, ensureEventPartitions } from "./store/partitions.js";
import { PIPELINE_STEPS } from "./pipeline.js";
import { postHogRoutes } from "./posthog/routes.js";
import { eventRoutes } from "./routes.js";
import { PARTITIONS_JOB } from "./schema.js";
import { EXPIRE_EVERY_MS } from "./segment/dedup.js";
import { segmentRoutes } from "./segment/routes.js";
import { MESSAGE_IDS_EXPIRY_JOB } from "./segment/schema.js";

export const eventsModule: LiftModule = {
  name: "events",
  async register(app) {
    app.eventBus.setPipeline(PIPELINE_STEPS);
    // The country database is read at start, never by a request.
    stateOf(app.deps, GEO);
    await app.register(eventRoutes);
    await app.register(segmentRoutes);
    await app.register(postHogRoutes);
    for (const job of eventJobs()) app.jobs.define(job);
    // PostgreSQL: this month's and the next ones' partitions exist before the first insert, even
    // when the daily job has not run for a while (a database restored from an old backup).
    await ensureEventPartitions(app.db);
    app.worker.addSchedule(PARTITIONS_JOB, PARTITIONS_EVERY_MS);
    app.worker.addSchedule(MESSAGE_IDS_EXPIRY_JOB, EXPIRE_EVERY_MS);
  },
};
