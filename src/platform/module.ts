import type { FastifyInstance } from "fastify";

/**
 * A feature module: registers its routes, job definitions, service-event subscribers, event
 * processors and schedules (docs/platform.md). Defined here, below the modules, so a module's
 * module.ts and the registry (modules/index.ts) both depend downward on it.
 */
export interface LiftModule {
  name: string;
  register(app: FastifyInstance): Promise<void>;
}
