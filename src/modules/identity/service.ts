/** The identity module's contract for other modules (webhooks in, connectors, Segment's API). */
export { type Lead, type LeadInput, getLead, upsertLeadByEmail } from "./leads.js";
export { type Journey, getJourney } from "./journey.js";
export { type PropertyChange, updateLeadProperties } from "./profile.js";
export { type IdentitySubject, deleteIdentityOf, identitySubject } from "./erase-identity.js";
/** A lead's profile as GET /api/leads/:id answers it, and its parameters (the MCP endpoint's lookup). */
export { getLeadProfile } from "./profile.js";
export { LeadParams, LeadProfile } from "./schema.js";
/** What identity changed (leads created or moved, visitors linked), handed over in its transaction. */
export {
  type IdentityChange,
  type IdentityChangeListener,
  type IdentityDeps,
  onIdentityChanges,
} from "./changes.js";
/** What analytics' filters, cohorts and pickers read of leads (analytics never reads identity's tables). */
export { latestLeadProperties, leadCreatedTimes, leadIdsWhere } from "./lead-filter.js";
/** What the lead list and profile ask of analytics, which provides it when it registers. */
export {
  LEAD_ANALYTICS,
  type LeadAnalytics,
  type LeadCondition,
  type LeadPropertyTest,
} from "./lead-analytics.js";
