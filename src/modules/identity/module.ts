import type { LiftModule } from "../../platform/module.js";
import { provideLeadReader } from "../analytics/service.js";
import { provideKnownLeads } from "../events/service.js";
import { identityLeadReader } from "./lead-filter.js";
import { knownLeadIds } from "./leads.js";
import { processIdentityEvents } from "./processor.js";
import { identityRoutes } from "./routes.js";

export { getLead, upsertLeadByEmail } from "./leads.js";

export const identityModule: LiftModule = {
  name: "identity",
  async register(app) {
    app.eventBus.register("identity", processIdentityEvents);
    // Analytics' filters and cohorts read leads through this (analytics/lead-reader.ts).
    provideLeadReader(identityLeadReader);
    // A page's events may create only so many leads: events asks which ids are new (events/admission.ts).
    provideKnownLeads(knownLeadIds);
    await app.register(identityRoutes);
  },
};
