import type { LiftModule } from "../../platform/module.js";
import { provideLeadReader } from "../analytics/service.js";
import { latestLeadProperties, leadCreatedTimes, leadIdsWhere } from "./lead-filter.js";
import { processIdentityEvents } from "./processor.js";
import { identityRoutes } from "./routes.js";

export { getLead, upsertLeadByEmail } from "./leads.js";

export const identityModule: LiftModule = {
  name: "identity",
  async register(app) {
    app.eventBus.register("identity", processIdentityEvents);
    // Analytics' filters and cohorts read leads through this (analytics/lead-reader.ts).
    provideLeadReader({
      idsWhere: leadIdsWhere,
      createdTimes: leadCreatedTimes,
      latestProperties: latestLeadProperties,
    });
    await app.register(identityRoutes);
  },
};
