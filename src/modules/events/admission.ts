import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { type ServiceDeps, providedSlot, stateOf } from "../../platform/deps.js";
import { type IngestSender, countsNewLeads, takeIngestBudget } from "../../platform/ingest-limits.js";

/**
 * Which of these lead ids the project has. Identity owns leads and imports this module, so it
 * provides this in the app's state when it registers (as analytics' lead reader): the imports
 * keep pointing one way.
 */
export type KnownLeads = (db: DbOrTrx, project: ProjectRef, ids: string[]) => Promise<Set<string>>;

export const KNOWN_LEADS = providedSlot<KnownLeads>("events.known-leads", "identity");

/**
 * Admits a request's events before anything of it is written: takes them, and from a public key
 * the leads they would create (ids the project does not have yet), from the sender's budgets
 * (platform/ingest-limits.ts). Throws 429 when a budget refuses; the request then stores nothing.
 * Two requests naming the same new id at once both count it: the bound errs on the safe side.
 */
export function admitEvents(
  deps: ServiceDeps,
  project: ProjectRef,
  sender: IngestSender,
  events: number,
  leadIds: Iterable<string | null> = [],
): Promise<void> {
  // Not async: most requests count no new leads, and their admission then makes no promise of its own.
  if (!countsNewLeads(deps, sender)) return takeIngestBudget(deps, sender, { events });
  return admitWithNewLeads(deps, project, sender, events, leadIds);
}

async function admitWithNewLeads(
  deps: ServiceDeps,
  project: ProjectRef,
  sender: IngestSender,
  events: number,
  leadIds: Iterable<string | null>,
): Promise<void> {
  const ids = new Set<string>();
  for (const id of leadIds) if (id !== null) ids.add(id);
  const newLeads =
    ids.size > 0 ? ids.size - (await stateOf(deps, KNOWN_LEADS)(deps.db, project, [...ids])).size : 0;
  await takeIngestBudget(deps, sender, { events, newLeads });
}
