import type { LiftModule } from "../../platform/module.js";
import { insightRoutes } from "./routes.js";
import { dashboardRoutes } from "./routes-dashboards.js";
import { sharedRoutes } from "./routes-shared.js";

/** Saved insights, dashboards of them, and a dashboard's read-only public link. */
export const insightsModule: LiftModule = {
  name: "insights",
  async register(app) {
    await app.register(insightRoutes);
    await app.register(dashboardRoutes);
    await app.register(sharedRoutes);
  },
};
