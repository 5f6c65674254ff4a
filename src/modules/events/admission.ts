import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { type IngestSender, countsNewLeads, takeIngestBudget } from "../../platform/ingest-limits.js";

/**
 * Which of these lead ids the project has. Identity owns leads and imports this module, so it
 * hands this in when it registers (as analytics' lead reader): the imports keep pointing one way.
 * It takes its database explicitly, so one lookup serves every app in the process.
 */
export type KnownLeads = (db: DbOrTrx, project: ProjectRef, ids: string[]) => Promise<Set<string>>;

let knownLeads: KnownLeads | null = null;

export function provideKnownLeads(fn: KnownLeads): void {
  knownLeads = fn;
}

/**
 * Admits a request's events before anything of it is written: takes them, and from a public key
 * the leads they would create (ids the project does not have yet), from the sender's budgets
 * (platform/ingest-limits.ts). Throws 429 when a budget refuses; the request then stores nothing.
 * Two requests naming the same new id at once both count it: the bound errs on the safe side.
 */
export async function admitEvents(
  deps: ServiceDeps,
  project: ProjectRef,
  sender: IngestSender,
  events: number,
  leadIds: Iterable<string | null> = [],
): Promise<void> {
  let newLeads = 0;
  if (countsNewLeads(deps, sender)) {
    const ids = new Set<string>();
    for (const id of leadIds) if (id !== null) ids.add(id);
    if (ids.size > 0) {
      if (!knownLeads) throw new Error("no lead lookup: the identity module provides it when it registers");
      newLeads = ids.size - (await knownLeads(deps.db, project, [...ids])).size;
    }
  }
  await takeIngestBudget(deps, sender, { events, newLeads });
}
