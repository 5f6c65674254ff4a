import { provide } from "../../platform/deps.js";
import type { LiftModule } from "../../platform/module.js";
import { KNOWN_LEADS } from "../events/service.js";
import { knownLeadIds } from "./leads.js";
import { identityStep } from "./processor.js";
import { identityRoutes } from "./routes.js";

export { getLead, upsertLeadByEmail } from "./leads.js";

export const identityModule: LiftModule = {
  name: "identity",
  async register(app) {
    app.eventBus.register("identity", identityStep(app.deps));
    // A page's events may create only so many leads: events asks which ids are new (events/admission.ts).
    provide(app.deps, KNOWN_LEADS, knownLeadIds);
    await app.register(identityRoutes);
  },
};
