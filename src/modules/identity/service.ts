/** The identity module's contract for other modules (webhooks in, connectors, Segment's API). */
export { type Lead, type LeadInput, getLead, upsertLeadByEmail } from "./leads.js";
export { type Journey, getJourney } from "./journey.js";
export { type PropertyChange, updateLeadProperties } from "./profile.js";
export { type IdentitySubject, deleteIdentityOf, identitySubject } from "./erase-identity.js";
/** A lead's profile as GET /api/leads/:id answers it, and its parameters (the MCP endpoint's lookup). */
export { getLeadProfile } from "./profile.js";
export { LeadParams, LeadProfile } from "./schema.js";
