import type { LiftModule } from "../../platform/module.js";
import { workspaceRoutes } from "./routes.js";
import { inviteRoutes } from "./routes-invites.js";

export const workspaceModule: LiftModule = {
  name: "workspace",
  async register(app) {
    await app.register(workspaceRoutes);
    await app.register(inviteRoutes);
  },
};
