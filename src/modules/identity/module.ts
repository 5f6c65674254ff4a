import type { LiftModule } from "../index.js";

export const identityModule: LiftModule = {
  name: "identity",
  async register(_app) {},
};
