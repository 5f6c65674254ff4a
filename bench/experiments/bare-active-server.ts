/** Baseline for the active-experiments benchmark: a bare Fastify GET route answering a fixed JSON body. */
import Fastify from "fastify";

const body = process.env.BARE_BODY ?? "[]";
const app = Fastify({ logger: false });
app.get("/api/experiments/active", async (_req, reply) => reply.type("application/json").send(body));
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
