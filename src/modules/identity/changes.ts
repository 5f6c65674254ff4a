import type { ProjectRef } from "../../platform/auth/principal.js";
import { type DbOrTrx, type Trx, withTransaction } from "../../platform/db/index.js";
import { type StateHolder, stateOf, stateSlot } from "../../platform/deps.js";

/**
 * What an identity write changed that other modules derive data from (analytics' daily leads,
 * its visitor → lead links, conversions re-keyed and re-credited). Identity writes only its own
 * tables and hands these facts over, in order, in the same transaction, so what is derived commits
 * with the change or not at all and is there when the call answers.
 */
export type IdentityChange =
  /** a lead was created: `channel` is its first touch at creation (null: none yet), `createdAt` epoch ms */
  | { kind: "lead-created"; project: ProjectRef; leadId: string; channel: string | null; createdAt: number }
  /** a lead's creation moved earlier, from one day to another; `channel` is the one it was counted under */
  | {
      kind: "lead-moved";
      project: ProjectRef;
      leadId: string;
      channel: string | null;
      from: number;
      to: number;
    }
  /** a visitor now belongs to a lead (its history joins the lead's) */
  | { kind: "visitor-linked"; project: ProjectRef; visitorId: string; leadId: string };

/** Runs in the transaction of the change, before it commits; an error rolls the change back. */
export type IdentityChangeListener = (trx: Trx, changes: IdentityChange[]) => Promise<void>;

const LISTENERS = stateSlot("identity.change-listeners", (): IdentityChangeListener[] => []);

/**
 * Subscribes to identity's changes: every call that links a visitor or creates or re-dates a lead
 * (the pipeline's identity step, POST /api/identity, the stitch, `upsertLeadByEmail`) hands its
 * changes to each listener, in subscription order, within its transaction.
 */
export function onIdentityChanges(holder: StateHolder, listener: IdentityChangeListener): void {
  stateOf(holder, LISTENERS).push(listener);
}

/** Hands the collected changes to the app's listeners (nothing when there are none). */
export async function publishIdentityChanges(
  holder: StateHolder,
  trx: Trx,
  changes: IdentityChange[],
): Promise<void> {
  if (changes.length === 0) return;
  for (const listener of stateOf(holder, LISTENERS)) await listener(trx, changes);
}

/** What an identity write that changes leads or links needs: the database and the app's listeners. */
export interface IdentityDeps extends StateHolder {
  db: DbOrTrx;
}

/**
 * An identity write in one transaction (the caller's, when `deps.db` is one): `fn` records its
 * changes in the list it is given, and they are handed over before the transaction commits.
 */
export function withIdentityChanges<T>(
  deps: IdentityDeps,
  fn: (trx: Trx, changes: IdentityChange[]) => Promise<T>,
): Promise<T> {
  return withTransaction(deps.db, async (trx) => {
    const changes: IdentityChange[] = [];
    const result = await fn(trx, changes);
    await publishIdentityChanges(deps, trx, changes);
    return result;
  });
}
