import { provide } from "../../platform/deps.js";
import type { LiftModule } from "../../platform/module.js";
import { LEAD_READER } from "../analytics/service.js";
import { KNOWN_LEADS } from "../events/service.js";
import { identityLeadReader } from "./lead-filter.js";
import { knownLeadIds } from "./leads.js";
import { processIdentityEvents } from "./processor.js";
import { identityRoutes } from "./routes.js";

export { getLead, upsertLeadByEmail } from "./leads.js";

export const identityModule: LiftModule = {
  name: "identity",
  async register(app) {
    app.eventBus.register("identity", processIdentityEvents);
    // Analytics' filters and cohorts read leads through this (analytics/filters/lead-reader.ts).
    provide(app.deps, LEAD_READER, identityLeadReader);
    // A page's events may create only so many leads: events asks which ids are new (events/admission.ts).
    provide(app.deps, KNOWN_LEADS, knownLeadIds);
    await app.register(identityRoutes);
  },
};
