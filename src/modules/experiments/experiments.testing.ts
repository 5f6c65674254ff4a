import { withTransaction } from "../../platform/db/index.js";
import type { CommittedEvent } from "../../platform/event-bus.js";
import type { ServiceDeps } from "../../platform/deps.js";

let seq = 0;
/** A committed event as the events module hands it to processors (tests only). */
export function committed(
  project: { projectId: string; workspaceId: string },
  e: Partial<CommittedEvent> & { type: string; visitorId: string },
): CommittedEvent {
  seq++;
  return {
    id: `ev_test_${seq}`,
    workspaceId: project.workspaceId,
    projectId: project.projectId,
    leadId: null,
    url: "https://shop.example/pricing",
    data: {},
    referrer: null,
    timestamp: Date.now() + seq,
    sessionId: `s_${e.visitorId}`,
    channel: "direct",
    source: null,
    sessionStarted: false,
    userAgent: null,
    isBot: false,
    origin: "web",
    ...e,
  };
}

/** Runs the processors inside a transaction, as the events writer does. */
export async function processEvents(
  deps: Pick<ServiceDeps, "db" | "eventBus">,
  events: CommittedEvent[],
): Promise<void> {
  const committed = await withTransaction(deps.db, (trx) => deps.eventBus.process(trx, events));
  for (const fn of committed) fn();
}

export const exposure = (experimentId: string, variant: string) => ({
  type: "$exposure",
  data: { experimentId, variant },
});
