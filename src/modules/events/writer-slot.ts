import { type ServiceDeps, appSlot, stateOf } from "../../platform/deps.js";
import { messageClaims } from "./segment/dedup.js";
import { EventWriter } from "./writer.js";

// One group-commit writer per app.
const WRITER = appSlot(
  "events.writer",
  (deps) =>
    new EventWriter(deps.dbHandle, deps.eventBus, deps.log, {
      maxEvents: 5000,
      maxDelayMs: 0,
      indexMergeRows: deps.config.eventIndexMergeRows,
      // Several API processes over one PostgreSQL decide sessions through Redis (shared-sessions.ts).
      redis: deps.dbHandle.sqlite ? undefined : deps.redis,
      // Segment's messageIds, claimed in the flush's transaction (segment/dedup.ts).
      claims: messageClaims(deps.dbHandle),
    }),
);

/** The app's group-commit writer. */
export const writerFor = (deps: ServiceDeps): EventWriter => stateOf(deps, WRITER);
