import type { LiftModule } from "../index.js";
import { processIdentityEvents } from "./processor.js";
import { erasureRoutes } from "./routes-erasure.js";
import { identityRoutes } from "./routes.js";

export { getLead, upsertLeadByEmail } from "./leads.js";

export const identityModule: LiftModule = {
  name: "identity",
  async register(app) {
    app.eventBus.register("identity", processIdentityEvents);
    await app.register(identityRoutes);
    await app.register(erasureRoutes);
  },
};
