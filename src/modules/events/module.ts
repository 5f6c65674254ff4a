import type { LiftModule } from "../index.js";
import { eventRoutes } from "./routes.js";

export const eventsModule: LiftModule = {
  name: "events",
  async register(app) {
    await app.register(eventRoutes);
  },
};
