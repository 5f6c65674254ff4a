import { NoPayload, jobKind } from "../../platform/jobs/index.js";

// The job names keep their `events.` prefix: queued and scheduled jobs are stored under them.

/** PostgreSQL: creates the coming months' partitions of `events` (daily; store/partitions.ts). */
export const PARTITIONS_JOB = jobKind("events.partitions", NoPayload);

/** Deletes stored messageIds past the 24-hour window (hourly; claims/claims-store.ts). */
export const MESSAGE_IDS_EXPIRY_JOB = jobKind("events.segment-message-ids", NoPayload);
