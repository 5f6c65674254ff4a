import type { Trx } from "../../platform/db/index.js";
import type { CommittedEvent } from "../../platform/event-bus.js";
import { getLead } from "./leads.js";
import { updateLeadProperties } from "./profile.js";

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Group calls (`$group` events: Segment's `group`, events/segment/map.ts), after the links (which
 * made the event's lead): the traits go onto its lead under `properties.groups.<groupId>`, merged
 * into that group's earlier
 * traits, other groups untouched. `$group$set` (a secret key's call) overwrites a trait,
 * `$group$set_once` (a public key's) only fills what the group does not have. A group call without
 * a userId is stored as an event only. In event-time order, in the events' own transaction.
 */
export async function processGroupEvents(trx: Trx, events: CommittedEvent[]): Promise<void> {
  const calls: CommittedEvent[] = [];
  for (const e of events) if (e.type === "$group" && e.leadId !== null && !e.isBot) calls.push(e);
  if (calls.length === 0) return;
  calls.sort((a, b) => a.timestamp - b.timestamp);
  for (const e of calls) {
    const groupId = e.data.groupId;
    const set = e.data.$group$set;
    const setOnce = e.data.$group$set_once;
    const traits = isObject(set) ? set : isObject(setOnce) ? setOnce : null;
    if (typeof groupId !== "string" || traits === null) continue;
    const project = { id: e.projectId, workspaceId: e.workspaceId };
    const lead = await getLead(trx, project, e.leadId!);
    const groups = isObject(lead.properties.groups) ? lead.properties.groups : {};
    const before = isObject(groups[groupId]) ? groups[groupId] : {};
    const after = traits === set ? { ...before, ...traits } : { ...traits, ...before };
    // An event's change over the lead's size limit is skipped: it must not fail the events commit.
    // A server's traits go inside `groups`, beside traits a browser may have filled: its mark stays.
    await updateLeadProperties(
      trx,
      project,
      e.leadId!,
      { set: { groups: { ...groups, [groupId]: after } }, source: e.fromPublicKey ? "browser" : "partial" },
      "skip",
    );
  }
}
