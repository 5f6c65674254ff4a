/** The identity module's contract for other modules (webhooks in, connectors). */
export { type Lead, type LeadInput, getLead, upsertLeadByEmail } from "./leads.js";
export { type Journey, getJourney } from "./journey.js";
export { latestLeadProperties, leadCreatedTimes, leadIdsWhere } from "./lead-filter.js";
