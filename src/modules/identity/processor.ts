import type { Trx } from "../../platform/db/index.js";
import type { StateHolder } from "../../platform/deps.js";
import type { CommittedEvent, EventProcessor } from "../../platform/event-bus.js";
import { type IdentityChange, publishIdentityChanges } from "./changes.js";
import type { Dating } from "./dating.js";
import { linkVisitor } from "./links.js";
import { processGroupEvents } from "./groups.js";
import { applyEventProperties } from "./profile.js";
import "./tables.js";

/**
 * Identity's event processor: batch userIds and server events' lead ids (event.leadId), dated by
 * their events' times, then
 * `$set` / `$set_once` in events' data and group calls' traits (after the links, so a batch's own
 * userId counts). A visitor's first/last seen and
 * first touch are the event store's per-visitor state (`firstTouchForVisitors`), read when a
 * link or a journey needs them, so identity adds nothing per event to the commit. The leads it
 * creates or moves and the visitors it links are recorded in `changes`.
 */
export async function processIdentityEvents(
  trx: Trx,
  events: CommittedEvent[],
  changes: IdentityChange[],
): Promise<void> {
  const links = new Map<
    string,
    { projectId: string; workspaceId: string; visitorId: string; leadId: string; dating: Dating }
  >();
  const now = Date.now();
  for (const e of events) {
    if (!e.leadId) continue;
    const key = `${e.projectId}\u0000${e.visitorId}\u0000${e.leadId}`;
    const link = links.get(key);
    // Dated by the earliest of its events (never past now); a server's events may move an
    // existing lead or link earlier, a page's only date what they create (dating.ts).
    const at = Math.min(e.timestamp, now);
    if (!link)
      links.set(key, {
        projectId: e.projectId,
        workspaceId: e.workspaceId,
        visitorId: e.visitorId,
        leadId: e.leadId,
        dating: { at, moveEarlier: !e.fromPublicKey },
      });
    else {
      link.dating.at = Math.min(link.dating.at, at);
      if (!e.fromPublicKey) link.dating.moveEarlier = true;
    }
  }
  for (const l of links.values()) {
    const project = { id: l.projectId, workspaceId: l.workspaceId };
    // An unknown userId becomes a lead under that id; a visitor already linked elsewhere stays put.
    const link = { visitorId: l.visitorId, leadId: l.leadId, source: "userId" };
    await linkVisitor(trx, project, link, changes, "skip", l.dating);
  }
  await applyEventProperties(trx, events);
  await processGroupEvents(trx, events);
}

/**
 * The pipeline's identity step: the batch's identity work, then its changes handed to the app's
 * listeners in the flush transaction, before the steps after it (analytics) read them.
 */
export const identityStep =
  (holder: StateHolder): EventProcessor =>
  async (trx, events) => {
    const changes: IdentityChange[] = [];
    await processIdentityEvents(trx, events, changes);
    await publishIdentityChanges(holder, trx, changes);
  };
