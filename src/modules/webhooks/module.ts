import type { LiftModule } from "../index.js";

export const webhooksModule: LiftModule = {
  name: "webhooks",
  async register(_app) {},
};
