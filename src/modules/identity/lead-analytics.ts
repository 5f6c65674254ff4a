import type { RawBuilder } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { type ReadDeps, providedSlot } from "../../platform/deps.js";

/**
 * A report filter's condition as identity sees it: a lead-property condition (`field` "lead"),
 * which becomes SQL over a lead's properties, or one analytics resolves (event, session, cohort).
 * Plain data, so it travels to a read worker with the lead list's query.
 */
export interface LeadCondition {
  field: string;
  property?: string;
}

/** A condition on one lead property, as SQL over a JSON text column of properties. */
export interface LeadPropertyTest {
  property: string;
  sql(properties: RawBuilder<unknown>, postgres: boolean): RawBuilder<boolean>;
}

/**
 * What the lead list and a lead's profile ask of analytics: the report filter (parsing, a lead
 * property condition as SQL, the people the other conditions select) and each lead's conversion
 * totals. Analytics derives its data from identity's changes and imports identity's service, so
 * identity does not import analytics back: analytics' module provides these at registration, and
 * a read worker's `prepare` does the same for the worker (modules/read-tasks.ts).
 */
export interface LeadAnalytics {
  /** `filter=` (JSON) as conditions; 400 naming `query.filter` when it is not one */
  parseFilter(text: string | undefined): LeadCondition[];
  /** a `lead` condition as SQL over a lead's properties */
  propertyTest(cond: LeadCondition): LeadPropertyTest;
  /** who meets the other conditions over the UTC days (by person key, `l:<leadId>`); undefined: everyone */
  peopleMatching(
    deps: ReadDeps,
    project: ProjectRef,
    days: { fromDay: number; toDay: number },
    conds: LeadCondition[],
  ): Promise<((personKey: string) => boolean) | undefined>;
  /** conversions (refunds excluded) and revenue of each given lead */
  conversionTotals(
    db: DbOrTrx,
    project: ProjectRef,
    leadIds: string[],
  ): Promise<Map<string, { conversions: number; revenue: number }>>;
}

/** The app's lead analytics (`stateOf(deps, LEAD_ANALYTICS)`); analytics' module provides it. */
export const LEAD_ANALYTICS = providedSlot<LeadAnalytics>("identity.lead-analytics", "analytics");
