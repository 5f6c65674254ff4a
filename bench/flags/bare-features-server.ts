/**
 * Baseline of the flag payload benchmark: a bare Fastify GET route answering the same bytes (and
 * the same 304 for a matching If-None-Match), nothing else.
 */
import Fastify from "fastify";

const body = process.env.BARE_BODY ?? "{}";
const etag = process.env.BARE_ETAG ?? '"x"';
const app = Fastify({ logger: false });
app.get("/api/features/:clientKey", async (req, reply) => {
  if (req.headers["if-none-match"] === etag) return reply.code(304).send();
  return reply.header("etag", etag).type("application/json; charset=utf-8").send(body);
});
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
