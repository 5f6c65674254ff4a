import client from "prom-client";
import type { LiftModule } from "../../platform/module.js";
import { onExperimentChange } from "../experiments/service.js";
import { ofrepRoutes } from "./ofrep/routes.js";
import { postHogFlagRoutes } from "./posthog/routes.js";
import { flagRoutes } from "./routes.js";
import { flagSdkRoutes } from "./routes-sdk.js";
import { closeFlags, flagsChanged, flagStreams } from "./service.js";

export const flagsModule: LiftModule = {
  name: "flags",
  async register(app) {
    // Built now, not on first use: with REDIS_URL its subscription hears other processes' changes.
    const streams = flagStreams(app.deps);
    new client.Gauge({
      name: "lift_flag_streams",
      help: "open GET /sub/:clientKey streams (GrowthBook SDKs listening for flag changes) in this process",
      registers: [app.metricsRegistry],
      collect() {
        this.set(streams.size);
      },
    });
    // Experiment rules serve the experiment's weights, status and winner: its changes are flag changes.
    onExperimentChange(app.deps, (projectId) => flagsChanged(app.deps, projectId));
    // Streams end before the server waits for its connections to close.
    app.addHook("preClose", async () => closeFlags(app.deps));
    await app.register(flagRoutes);
    await app.register(flagSdkRoutes);
    await app.register(ofrepRoutes);
    await app.register(postHogFlagRoutes);
  },
};
