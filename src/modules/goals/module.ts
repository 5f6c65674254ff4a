import type { LiftModule } from "../index.js";

export const goalsModule: LiftModule = {
  name: "goals",
  async register(_app) {},
};
