import type { LiftModule } from "../../platform/module.js";
import { mcpRoutes } from "./routes.js";

/** The Model Context Protocol at /mcp: the API's questions as tools for AI agents (docs/mcp.md). */
export const mcpModule: LiftModule = {
  name: "mcp",
  async register(app) {
    await app.register(mcpRoutes);
  },
};
