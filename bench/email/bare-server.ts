/** Baseline: a bare Fastify POST route that parses the JSON body and answers a send-shaped body. */
import { randomUUID } from "node:crypto";
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.post("/api/v1/transactional/send", async () => ({
  send_id: randomUUID(),
  message_id: `sbx_${randomUUID()}`,
  status: "sent",
  sandbox: true,
}));
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
