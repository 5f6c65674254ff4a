import type { LiftModule } from "../index.js";

export const beliefsModule: LiftModule = {
  name: "beliefs",
  async register(_app) {},
};
