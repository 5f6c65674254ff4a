import type { LiftModule } from "../index.js";

export const eventsModule: LiftModule = {
  name: "events",
  async register(_app) {},
};
