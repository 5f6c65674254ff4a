import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { bearer, callJson as call, listenForMcp, mcpClient } from "./mcp.testing.js";

/**
 * Who may talk to /mcp: a project's secret API key, checked by the API's own guard before the SDK
 * sees the request (the API's 401 and 403); stateless mode's 405s; a write tool's call counted
 * against the key's write limit.
 */
let t: TestApp;
let a: Tenant;
let url: URL;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 100, writes: 2 } });
  url = await listenForMcp(t);
  a = await t.tenant();
});
afterAll(async () => t?.close());

describe("MCP refuses callers without a secret key before any MCP handling", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(initialize),
    });

  it("no key, an unknown key, a public key: 401 in the API's error format", async () => {
    const callers: Record<string, string>[] = [
      {},
      bearer("svc_key_not-a-real-key"),
      bearer(a.publicKey),
      { "x-api-key": a.publicKey },
    ];
    for (const headers of callers) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      const body = await res.json();
      expect(body).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
      expect(body.requestId).toMatch(/^req_/);
      expect(typeof body.error).toBe("string");
    }
  });

  it("the SDK's client fails to connect with a public key (401)", async () => {
    const err = await mcpClient(url, bearer(a.publicKey)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
  });

  it("a signed-in session is not an MCP caller: 403", async () => {
    const res = await post({ cookie: a.adminCookie, origin: t.config.publicUrl });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "FORBIDDEN", status: 403 });
  });

  it("a malformed body is refused (a 4xx, or a JSON-RPC error for a JSON-RPC request), never a 500", async () => {
    const send = (body: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          ...bearer(a.apiKey),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      });
    for (const body of ['"text"', "{}", "{not json", '{"jsonrpc":"2.0","id":1}']) {
      const res = await send(body);
      expect(res.status, `${body}: ${await res.text()}`).toBeGreaterThanOrEqual(400);
      expect(res.status, body).toBeLessThan(500);
    }
    const badParams = [
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_flags","arguments":"x"}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
    ];
    for (const body of badParams) {
      const res = await send(body);
      expect(res.status, body).toBeLessThan(500);
      if (res.status === 200) expect((await res.json()).error, body).toBeDefined();
    }
    // An empty batch asks nothing: accepted with nothing to answer.
    expect((await send("[]")).status).toBe(202);
  });

  it("GET and DELETE are 405 in stateless mode (no server-sent stream, no session)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(url, { method, headers: { ...bearer(a.apiKey), accept: "text/event-stream" } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
    const res = await fetch(url, { method: "GET" });
    expect(res.status).toBe(401);
  });
});

describe("MCP rate limits", () => {
  it("a write tool call counts against the key's write limit, a read tool call against the read limit", async () => {
    const c = await t.tenant();
    const client = await mcpClient(url, bearer(c.apiKey));
    try {
      for (let i = 0; i < 3; i++) await call(client, "list_flags");
      await call(client, "create_annotation", { date: "2026-01-05", text: "one" });
      await call(client, "create_annotation", { date: "2026-01-06", text: "two" });
      const third = await client
        .callTool({ name: "create_annotation", arguments: { date: "2026-01-07", text: "three" } })
        .catch((e: unknown) => e);
      expect(third).toBeInstanceOf(StreamableHTTPError);
      expect((third as StreamableHTTPError).code).toBe(429);
      expect(await call(client, "list_flags")).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
