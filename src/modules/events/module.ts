import type { LiftModule } from "../index.js";
import { PIPELINE_STEPS } from "./pipeline.js";
import { exportRoutes } from "./routes-export.js";
import { eventRoutes } from "./routes.js";

export const eventsModule: LiftModule = {
  name: "events",
  async register(app) {
    app.eventBus.setPipeline(PIPELINE_STEPS);
    await app.register(eventRoutes);
    await app.register(exportRoutes);
  },
};
