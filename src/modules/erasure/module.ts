import type { LiftModule } from "../../platform/module.js";
import { erasureRoutes } from "./routes.js";

/**
 * Erasure of a person (a lead or a visitor) across every module that holds their data: it sits
 * above the modules it calls (events, identity, analytics, experiments, webhooks) and none of them
 * calls it, so the imports point one way.
 */
export const erasureModule: LiftModule = {
  name: "erasure",
  async register(app) {
    await app.register(erasureRoutes);
  },
};
