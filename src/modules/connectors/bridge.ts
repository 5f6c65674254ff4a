import { ingestServerEvents } from "../events/service.js";
import { registerGoalMetricProvider, scheduleGoalRecompute } from "../goals/service.js";
import { upsertLeadByEmail } from "../identity/service.js";

/**
 * The other modules' functions connectors call, in one place (each from that module's service.ts).
 * Revenue is queued in `connector_revenue` first (`ingested = 0`) and handed to the events module
 * after the sync commits, so a failed hand-off is retried by the next sync instead of being lost.
 */
export const bridge = {
  ingestServerEvents,
  upsertLeadByEmail,
  registerGoalMetricProvider,
  scheduleGoalRecompute,
};
