import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import { providedSlot } from "../../../platform/deps.js";
import type { Condition as FilterCondition } from "./filter.js";

/**
 * What filters, cohorts and pickers ask of leads: which hold a property condition, when they were
 * created, a sample of their properties.
 * Identity answers (it owns the leads) and depends on analytics for what it records, so analytics
 * does not import identity back: identity's module provides its functions in the app's state at
 * registration (dependency inversion; the imports point one way), and a read worker's `prepare`
 * does the same for the worker (modules/read-tasks.ts). The functions take their database
 * explicitly: a read worker's connection, or the caller's transaction.
 */
export interface LeadReader {
  /**
   * Ids of the project's leads whose properties satisfy the condition (all: null). `serverOnly`
   * (flag targeting): properties a browser wrote with the public key count as missing.
   */
  idsWhere(
    db: DbOrTrx,
    project: ProjectRef,
    cond: FilterCondition | null,
    opts?: { serverOnly?: boolean },
  ): Promise<Set<string>>;
  /** Creation time (epoch ms) of each of the given leads that exists. */
  createdTimes(db: DbOrTrx, project: ProjectRef, ids: string[]): Promise<Map<string, number>>;
  /** The properties (JSON) of the project's newest leads, at most `limit`: a sample for pickers. */
  latestProperties(db: DbOrTrx, project: ProjectRef, limit: number): Promise<string[]>;
}

/** The app's lead reader (`stateOf(deps, LEAD_READER)`); identity's module provides it. */
export const LEAD_READER = providedSlot<LeadReader>("analytics.lead-reader", "identity");
