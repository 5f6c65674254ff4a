import type { LiftModule } from "../index.js";
import { workspaceRoutes } from "./routes.js";

export const workspaceModule: LiftModule = {
  name: "workspace",
  async register(app) {
    const secureCookies = !/^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(app.config.publicUrl);
    await app.register(workspaceRoutes, { secureCookies });
  },
};
