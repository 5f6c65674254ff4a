import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { TSchema } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { callerOf, projectOf } from "../../platform/auth/plugin.js";
import { AppError } from "../../platform/errors.js";
import { mcpServer } from "./server.js";
import { WRITE_TOOL_NAMES } from "./service.js";

/** What the guard reads of a JSON-RPC message: whether it calls a tool, and which. */
interface ToolCallMessage {
  method?: unknown;
  params?: { name?: unknown } | null;
}

/** Whether the JSON-RPC body (one message or a batch) calls a tool that changes the project. */
function callsWriteTool(body: unknown): boolean {
  return [body].flat().some((m) => {
    const msg = m as ToolCallMessage | null;
    return msg?.method === "tools/call" && WRITE_TOOL_NAMES.has(String(msg.params?.name));
  });
}

/** Stateless mode has no server-sent stream to open and no session to end: GET and DELETE are 405. */
const NOT_ALLOWED = { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null };

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (docs/mcp.md), for a project's secret
 * API key. The key is checked by the API's own guard before the SDK sees the request, so a caller
 * without one gets the API's 401; a write tool's call counts against the write limit.
 */
export const mcpRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guards = { read: app.requireProject("read"), write: app.requireProject("write") };
  async function mcpCaller(req: FastifyRequest, reply: FastifyReply) {
    await guards[callsWriteTool(req.body) ? "write" : "read"].call(app, req, reply);
    // A dashboard session is a known caller of the wrong kind: agents hold keys, not cookies.
    if (req.principal.kind !== "apiKey")
      throw new AppError("FORBIDDEN", "MCP needs a project's secret API key as Authorization: Bearer");
  }
  const hidden = { hide: true };

  app.post("/mcp", { schema: hidden, preValidation: mcpCaller }, async (req, reply) => {
    const ctx = {
      deps: app.deps,
      project: projectOf(req),
      keyId: callerOf(req, "apiKey").keyId,
      serialize: (schema: TSchema, answer: unknown) =>
        reply.compileSerializationSchema(schema)(answer as Record<string, unknown>),
    };
    // Every secret key may call the write routes (keys carry no scopes), so it gets the write tools.
    const server = mcpServer(ctx, { mayWrite: true, requestId: req.id });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    // The SDK writes the answer on the socket: it carries any header the app's hooks put on the reply.
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      req.log.error({ err, reqId: req.id }, "request failed");
      if (!reply.raw.headersSent) {
        const body = { error: "internal server error", code: "INTERNAL", status: 500, requestId: req.id };
        reply.raw.writeHead(500, { "content-type": "application/json; charset=utf-8" });
        reply.raw.end(JSON.stringify(body));
      } else reply.raw.destroy();
    }
  });

  for (const method of ["GET", "DELETE"] as const)
    app.route({
      method,
      url: "/mcp",
      schema: hidden,
      preValidation: mcpCaller,
      handler: async (_req, reply) => reply.code(405).header("allow", "POST").send(NOT_ALLOWED),
    });
};
