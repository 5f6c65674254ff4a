import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as ToolInfo,
} from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../../platform/errors.js";
import { type SchemaCheck, compileSchema, firstSchemaError } from "../../platform/validation.js";
import { TOOLS, type Tool, type ToolContext, toolsFor } from "./service.js";

/**
 * One MCP server per request (stateless Streamable HTTP: no session, any process answers). The
 * SDK's low-level `Server` lets the tool list carry each route's TypeBox schema as the JSON Schema
 * it is; `McpServer.registerTool` would want the same schema again as zod.
 */

const INSTRUCTIONS =
  "Lift's analytics, experiments, feature flags and leads for the project of the API key. " +
  "Periods are UTC days: 7d is today and the 6 days before. Each tool answers JSON in the shape " +
  "of the HTTP API route its description names.";

/** Compiled once, with the validator the API's bodies use (typed JSON, defaults filled in). */
const checks = new Map<string, SchemaCheck>(TOOLS.map((t) => [t.name, compileSchema(t.input)]));

/** How tools/list describes a tool; its input schema is the TypeBox schema without its symbol keys. */
const describeTool = (t: Tool): ToolInfo => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: JSON.parse(JSON.stringify(t.input)) as ToolInfo["inputSchema"],
  annotations: { title: t.title, readOnlyHint: !t.writes, destructiveHint: false, openWorldHint: false },
});
const infos = new Map<string, ToolInfo>(TOOLS.map((t) => [t.name, describeTool(t)]));

/** A refusal as the API words it (`{error, code, status, requestId}`), as a tool error the agent can read. */
function toolError(err: AppError, requestId: string): CallToolResult {
  const body = { error: err.message, code: err.code, status: err.status, requestId };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

async function callTool(
  ctx: ToolContext,
  tools: Tool[],
  requestId: string,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const tool = tools.find((t) => t.name === name);
  // Unknown (or, for a caller that may not write, a write tool): a protocol error, as the spec says.
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
  const check = checks.get(name)!;
  if (!check(args))
    return toolError(
      new AppError("VALIDATION_ERROR", firstSchemaError(check, "arguments").message),
      requestId,
    );
  try {
    const answer = await tool.run(ctx, args as never);
    const json = { type: "text" as const, text: ctx.serialize(tool.output, answer) };
    return {
      content: tool.summarize ? [{ type: "text", text: tool.summarize(answer as never) }, json] : [json],
    };
  } catch (err) {
    if (err instanceof AppError) return toolError(err, requestId);
    // The cause stays in the log (tied by requestId); the agent gets the API's 500 words.
    ctx.deps.log.error({ err, reqId: requestId, tool: name }, "mcp tool failed");
    return toolError(new AppError("INTERNAL", "internal server error"), requestId);
  }
}

/** The server a request's caller talks to: the read tools, and the write tools when `mayWrite`. */
export function mcpServer(ctx: ToolContext, opts: { mayWrite: boolean; requestId: string }): Server {
  const server = new Server(
    { name: "lift", title: "Lift", version: "1.0.0" },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const tools = toolsFor(opts.mayWrite);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => infos.get(t.name)!),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) =>
    callTool(ctx, tools, opts.requestId, req.params.name, req.params.arguments ?? {}),
  );
  return server;
}
