import type { LiftModule } from "../index.js";

export const emailModule: LiftModule = {
  name: "email",
  async register(_app) {},
};
