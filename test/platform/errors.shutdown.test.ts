import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../helpers/app.js";

/**
 * A request that reaches a server already shutting down is 503 in the general format (Fastify's
 * own fast path answers `{error, message, statusCode}`). It takes a connection that is busy when
 * close() starts — an idle one is simply closed — so the test pipelines a second request behind
 * a first whose body is still arriving.
 */
let t: TestApp;
let port: number;
let closed = false;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  if (!closed) await t.close();
});

describe("shutdown", () => {
  it("a request arriving while the server closes is 503 UNAVAILABLE", async () => {
    const a = await t.tenant();
    const socket = net.connect(port, "127.0.0.1");
    await new Promise<void>((r) => socket.once("connect", () => r()));
    let received = "";
    socket.on("data", (d) => {
      received += d.toString("utf8");
    });
    const ended = new Promise<void>((r) => socket.once("close", () => r()));
    const body = JSON.stringify({ name: "x", eventType: "y" });
    // The first request's headers are in (it is routed), its body is not: the connection is busy.
    const routed = new Promise((r) => t.app.server.once("request", r));
    socket.write(
      `POST /api/conversion-goals HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${a.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await routed; // the server has parsed the first request's headers
    const closing = t.close().then(() => {
      closed = true;
    });
    socket.write(`${body}GET /api/goals HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${a.apiKey}\r\n\r\n`);
    await ended;
    await closing;
    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 201 /);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503 /);
    const json = JSON.parse(responses[1]!.split("\r\n\r\n")[1]!);
    expect(json).toEqual({
      error: expect.any(String),
      code: "UNAVAILABLE",
      status: 503,
      requestId: expect.any(String),
    });
  });
});
