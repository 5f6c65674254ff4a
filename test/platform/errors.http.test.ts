import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, type Tenant, startTestApp } from "../helpers/app.js";

/**
 * Every error outside the transactional send endpoint is `{error, code, status}` — also the ones
 * Fastify and Node's HTTP server answer before any route runs. Sent over real sockets, because
 * inject() skips the HTTP parser (431, malformed requests) and the server's shutdown path.
 */
let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as net.AddressInfo).port;
});
afterAll(async () => t.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

function parse(raw: string): RawResponse {
  const [head = "", ...rest] = raw.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(":");
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const text = rest.join("\r\n\r\n");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text; the assertions say what was expected
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

/** Writes `request` as is on a new connection and reads until the server closes it. */
function rawRequest(request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = net.connect(port, "127.0.0.1", () => s.write(request));
    s.on("data", (d) => chunks.push(d));
    s.on("error", reject);
    s.on("close", () => resolve(parse(Buffer.concat(chunks).toString("utf8"))));
  });
}

const get = (path: string, headers = "") =>
  rawRequest(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`);

const general = (status: number, code: string) => ({
  error: expect.any(String),
  code,
  status,
  requestId: expect.any(String),
});

describe("errors before routing (real HTTP)", () => {
  it("bad percent-encoding in the path is 400 VALIDATION_ERROR", async () => {
    for (const path of ["/api/sync/%", "/api/goals%zz", "/api/experiments/%E0%A4%A"]) {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(general(400, "VALIDATION_ERROR"));
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
    }
  });

  it("headers or a URL larger than the server accepts are 431 HEADERS_TOO_LARGE", async () => {
    const big = await get("/api/goals", `X-Big: ${"a".repeat(20_000)}\r\n`);
    expect(big.status).toBe(431);
    expect(big.body).toEqual(general(431, "HEADERS_TOO_LARGE"));
    expect(big.headers["content-type"]).toMatch(/^application\/json/);
    const longUrl = await get(`/api/goals?q=${"a".repeat(20_000)}`);
    expect(longUrl.status).toBe(431);
    expect(longUrl.body).toEqual(general(431, "HEADERS_TOO_LARGE"));
  });

  it("a request the HTTP parser cannot read is 400 VALIDATION_ERROR", async () => {
    for (const req of [
      "HELLO\r\n\r\n",
      "FOO / HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "POST /api/goals HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ]) {
      const res = await rawRequest(req);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(general(400, "VALIDATION_ERROR"));
    }
  });

  it("a request timeout (Node's headersTimeout/requestTimeout) is 408 REQUEST_TIMEOUT", async () => {
    // Node checks its timeouts every 30 s; the server's own clientError event is raised instead,
    // on a real connection, with the error Node gives it.
    const serverSide = new Promise<net.Socket>((r) => t.app.server.once("connection", r));
    const client = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    client.on("data", (d) => chunks.push(d));
    const closed = new Promise<void>((r) => client.on("close", () => r()));
    client.write("GET /api/goals HTTP/1.1\r\nHost: localhost\r\n"); // headers never finish
    const timeout = Object.assign(new Error("Request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" });
    t.app.server.emit("clientError", timeout, await serverSide);
    await closed;
    const res = parse(Buffer.concat(chunks).toString("utf8"));
    expect(res.status).toBe(408);
    expect(res.body).toEqual(general(408, "REQUEST_TIMEOUT"));
  });

  it("a path parameter longer than the router takes is 400 VALIDATION_ERROR; a long email still routes", async () => {
    const long = await get(`/api/transactional/sends/${"a".repeat(600)}`);
    expect(long.status).toBe(400);
    expect(long.body).toEqual(general(400, "VALIDATION_ERROR"));
    // A 254-character address (the longest SMTP allows) reaches the route and its auth check.
    const email = `${"a".repeat(64)}@${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.io`;
    expect(email.length).toBeLessThanOrEqual(254);
    const routed = await rawRequest(
      `DELETE /api/transactional/suppressions/${email} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    expect(routed.body).toEqual(general(401, "UNAUTHORIZED"));
  });

  it("no route is 404 NOT_FOUND; body errors are 400, 413 and 415 in the same format", async () => {
    expect((await get("/api/nope")).body).toEqual(general(404, "NOT_FOUND"));
    const post = (headers: string, body: string) =>
      rawRequest(`POST /api/goals HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n${body}`);
    const badJson = await post("Content-Type: application/json\r\nContent-Length: 3\r\n", "{x}");
    expect(badJson.body).toEqual(general(400, "VALIDATION_ERROR"));
    const form = await post(
      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n",
      "a=b",
    );
    expect(form.body).toEqual(general(415, "UNSUPPORTED_MEDIA_TYPE"));
    const size = 1024 * 1024 + 10;
    const tooBig = await post(
      `Content-Type: application/json\r\nContent-Length: ${size}\r\n`,
      "a".repeat(size),
    );
    expect(tooBig.body).toEqual(general(413, "PAYLOAD_TOO_LARGE"));
  });
});

describe("plugins' own answers", () => {
  it("an OPTIONS request without preflight headers on a public endpoint is no text/plain 400", async () => {
    // @fastify/cors's strict mode answers `Invalid Preflight Request` as text; a browser's
    // preflight always has both headers, so anything else is answered like a preflight.
    for (const headers of ["", "Origin: https://customer-site.example\r\n"]) {
      const res = await rawRequest(
        `OPTIONS /api/events HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`,
      );
      expect(res.status).toBe(204);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
    }
  });
});

describe("transactional provider webhook", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await t.tenant();
  });
  it("answers in the general format; only the send endpoint uses the transactional one", async () => {
    const provider = await a.post("/api/transactional/webhooks/provider", { type: "bounce" }, { as: "none" });
    expect(provider.status).toBe(401);
    expect(provider.body).toEqual(general(401, "UNAUTHORIZED"));
    const badJson = await a.request("POST", "/api/transactional/webhooks/provider", "{x", { as: "none" });
    expect(badJson.body).toEqual(general(400, "VALIDATION_ERROR"));
    const send = await a.post("/api/v1/transactional/send", { to: "x@example.com" }, { as: "none" });
    expect(send.status).toBe(401);
    expect(send.body).toEqual({
      error: { code: "unauthorized", message: expect.any(String), requestId: expect.any(String) },
    });
  });
});
