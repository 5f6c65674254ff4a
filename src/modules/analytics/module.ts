import type { LiftModule } from "../index.js";

export const analyticsModule: LiftModule = {
  name: "analytics",
  async register(_app) {},
};
