import type { LiftModule } from "../index.js";

export const experimentsModule: LiftModule = {
  name: "experiments",
  async register(_app) {},
};
