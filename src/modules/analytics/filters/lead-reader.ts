import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import { type LeadPropertyTest, leadIdsWhere } from "../../identity/service.js";
import { type Condition, propertyConditionSql } from "./filter.js";

/**
 * How filters, cohorts and pickers read leads: through identity's service (it owns the leads;
 * analytics never reads identity's tables). A lead-property condition travels to identity as SQL
 * over a lead's properties, built here from the filter's operators.
 */

/** A lead-property condition as identity applies it. */
export const leadPropertyTest = (cond: Condition): LeadPropertyTest => ({
  property: cond.property!,
  sql: (properties, postgres) => propertyConditionSql(cond, properties, postgres),
});

/**
 * Ids of the project's leads whose properties satisfy the condition (all: null). `serverOnly`
 * (flag targeting): properties a browser wrote with the public key count as missing.
 */
export const leadIdsHolding = (
  db: DbOrTrx,
  project: ProjectRef,
  cond: Condition | null,
  opts: { serverOnly?: boolean } = {},
): Promise<Set<string>> => leadIdsWhere(db, project, cond && leadPropertyTest(cond), opts);
