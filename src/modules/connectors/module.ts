import type { LiftModule } from "../index.js";

export const connectorsModule: LiftModule = {
  name: "connectors",
  async register(_app) {},
};
