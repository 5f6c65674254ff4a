import { stateOf } from "../../platform/deps.js";
import { GEO } from "../../platform/geo.js";
import type { LiftModule } from "../../platform/module.js";
import { PIPELINE_STEPS } from "./pipeline.js";
import { postHogRoutes } from "./posthog/routes.js";
import { eventRoutes } from "./routes.js";
import { segmentRoutes } from "./segment/routes.js";

export const eventsModule: LiftModule = {
  name: "events",
  async register(app) {
    app.eventBus.setPipeline(PIPELINE_STEPS);
    // The country database is read at start, never by a request.
    stateOf(app.deps, GEO);
    await app.register(eventRoutes);
    await app.register(segmentRoutes);
    await app.register(postHogRoutes);
  },
};
