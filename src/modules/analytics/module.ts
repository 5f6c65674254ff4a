import type { LiftModule } from "../index.js";
import { registerGoalMetricProvider } from "../goals/service.js";
import { ANALYTICS_GOAL_METRICS, goalMetric } from "./goal-metrics.js";
import { createAnalyticsProcessor } from "./processor.js";
import { analyticsRoutes } from "./routes.js";

export const analyticsModule: LiftModule = {
  name: "analytics",
  async register(app) {
    // Registered after identity's processor (module order), so visitor → lead links made by a
    // batch's userId are already known when its touchpoints and conversions are keyed.
    app.eventBus.register("analytics", createAnalyticsProcessor(app.dbHandle));
    registerGoalMetricProvider(app, goalMetric, ANALYTICS_GOAL_METRICS);
    await app.register(analyticsRoutes);
  },
};
