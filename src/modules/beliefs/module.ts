import type { LiftModule } from "../../platform/module.js";
import { beliefRoutes } from "./routes.js";

export const beliefsModule: LiftModule = {
  name: "beliefs",
  async register(app) {
    await app.register(beliefRoutes);
  },
};
