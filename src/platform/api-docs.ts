import scalar from "@scalar/fastify-api-reference";
import type { FastifyInstance } from "fastify";

// Everything /docs loads comes from this server: the reference's script is served by the plugin,
// fonts fall back to the system's, and no Scalar service (client, agent, MCP, deploy, telemetry) is
// linked. The policy makes that a rule the browser enforces.
const DOCS_CSP = [
  "default-src 'self'",
  // The plugin writes the reference's configuration as an inline script.
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** GET /openapi.json and the API reference at /docs, which works with no network beyond this server. */
export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  await app.register(scalar, {
    routePrefix: "/docs",
    hooks: {
      onRequest: async (_req, reply) => {
        reply.header("content-security-policy", DOCS_CSP);
      },
    },
    configuration: {
      url: "/openapi.json",
      pageTitle: "Lift API",
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      showDeveloperTools: "never",
      agent: { disabled: true },
      mcp: { disabled: true },
      documentDownloadType: "json",
    },
  });
}
