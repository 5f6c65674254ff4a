import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import type { TestApp } from "../../../test/helpers/app.js";

/** The app listening on a free port of 127.0.0.1, and its MCP endpoint's URL. */
export async function listenForMcp(t: TestApp): Promise<URL> {
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  return new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mcp`);
}

/** The SDK's own client, connected (initialize and its notification) with these headers. */
export async function mcpClient(url: URL, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "lift-mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export type ToolResult = { isError?: boolean; content: { type: string; text?: string }[] };

// biome-ignore lint/suspicious/noExplicitAny: answers are read as the HTTP API's JSON, field by field
type Answer = any;

/** The tool's JSON answer (its last text item), failing on a tool error. */
export async function callJson(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Answer> {
  const res = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
  return JSON.parse(res.content.at(-1)!.text!);
}
