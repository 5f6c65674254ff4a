/** Baseline for the single-event benchmark: a bare Fastify POST route that parses JSON and answers 200. */
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.post("/api/events", async () => ({ received: 1 }));
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
// A clean exit on SIGTERM, so `--cpu-prof` writes its profile (bench/events/profile-single.ts).
process.on("SIGTERM", () => process.exit(0));
