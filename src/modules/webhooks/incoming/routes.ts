import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";

export const incomingRoutes: FastifyPluginAsyncTypebox = async (_app) => {};
