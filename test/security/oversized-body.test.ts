import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../helpers/app.js";

/**
 * An oversized body is answered 413 in the general format and the client is never reset: the
 * server keeps the connection and reads (and drops) the rest of the body, up to a bound, before it
 * closes. Before, it answered and closed at once, so a client still writing its body got EPIPE or
 * ECONNRESET, often without the answer, and SDKs that retry network errors sent the same batch
 * again. Real sockets: inject() has no TCP.
 */
const MiB = 1024 * 1024;
const SLICE = 64 * 1024;

interface Sent {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  chunked?: boolean;
  /** the Content-Length declared, when it differs from what is written (a client that stalls) */
  declared?: number;
  /** stop writing after this many bytes and wait, connection open */
  stallAfter?: number;
}

interface Outcome {
  status: number;
  body: unknown;
  /** a socket error the client saw (ECONNRESET, EPIPE), if any */
  error?: string;
  /** body bytes the client wrote before the connection ended */
  written: number;
}

/**
 * Sends the request on its own connection as an SDK does: headers, then the body in slices,
 * honouring backpressure and writing on when an answer arrives. Resolves when the connection
 * closes, or when the whole body is written and the whole answer read.
 */
function send(port: number, s: Sent): Promise<Outcome> {
  return new Promise((resolve) => {
    const sock = net.connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    let error: string | undefined;
    let written = 0;
    let doneWriting = false;
    const answered = () => {
      const raw = Buffer.concat(received).toString("latin1");
      const end = raw.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, Math.max(end, 0)));
      return end >= 0 && length !== null && raw.length - end - 4 >= Number(length[1]);
    };
    sock.on("data", (d) => {
      received.push(d);
      if (doneWriting && answered()) sock.end();
    });
    sock.on("error", (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
    });
    sock.on("close", () => {
      const raw = Buffer.concat(received).toString("utf8");
      const [head = "", ...rest] = raw.split("\r\n\r\n");
      let body: unknown = rest.join("\r\n\r\n");
      try {
        body = JSON.parse(body as string);
      } catch {
        // kept as text: the assertion shows it
      }
      resolve({ status: Number(head.split(" ")[1] ?? 0), body, error, written });
    });
    const framing = s.chunked
      ? { "transfer-encoding": "chunked" }
      : { "content-length": String(s.declared ?? s.body.length) };
    const head = `POST ${s.path} HTTP/1.1\r\n${Object.entries({ host: "localhost", ...s.headers, ...framing })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("")}\r\n`;
    const write = (data: Buffer | string) =>
      new Promise<void>((r) => {
        if (sock.destroyed) return r();
        if (sock.write(data)) return r();
        sock.once("drain", r);
        sock.once("close", r);
      });
    sock.once("connect", async () => {
      await write(head);
      const upTo = Math.min(s.body.length, s.stallAfter ?? Number.POSITIVE_INFINITY);
      for (let at = 0; at < upTo && !sock.destroyed; at += SLICE) {
        const slice = s.body.subarray(at, Math.min(at + SLICE, upTo));
        const framed = s.chunked
          ? Buffer.concat([Buffer.from(`${slice.length.toString(16)}\r\n`), slice, Buffer.from("\r\n")])
          : slice;
        await write(framed);
        if (!sock.destroyed) written += slice.length;
        // The server's answer can arrive mid-body, as it does under load.
        await new Promise((r) => setImmediate(r));
      }
      if (s.stallAfter !== undefined) return;
      if (s.chunked) await write("0\r\n\r\n");
      doneWriting = true;
      if (answered()) sock.end();
    });
  });
}

/** The same through node:http, as Node SDKs send: the whole body in one `end()`. */
function sendWithNodeHttp(port: number, s: Sent): Promise<Outcome> {
  return new Promise((resolve) => {
    let error: string | undefined;
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: s.path, headers: s.headers });
    req.on("error", (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
      resolve({ status: 0, body: undefined, error, written: 0 });
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d) => chunks.push(d));
      res.on("end", () => {
        let body: unknown = Buffer.concat(chunks).toString("utf8");
        try {
          body = JSON.parse(body as string);
        } catch {
          // kept as text: the assertion shows it
        }
        // Settle after the request's own events: an EPIPE on the body comes after the answer.
        setImmediate(() => resolve({ status: res.statusCode ?? 0, body, error, written: s.body.length }));
      });
    });
    req.end(s.body);
  });
}

const tooLarge = {
  error: expect.any(String),
  code: "PAYLOAD_TOO_LARGE",
  status: 413,
  requestId: expect.any(String),
};
const isTooLarge = (body: unknown) => {
  const b = body as Record<string, unknown> | undefined;
  return (
    b?.code === "PAYLOAD_TOO_LARGE" &&
    b.status === 413 &&
    typeof b.error === "string" &&
    typeof b.requestId === "string" &&
    Object.keys(b).length === 4
  );
};

const jsonBody = (bytes: number) => Buffer.from(JSON.stringify({ projectKey: "x", pad: "a".repeat(bytes) }));
/** Text that gzip cannot shrink much, so its compressed size is still past the limits. */
const incompressible = (bytes: number) =>
  Buffer.from(JSON.stringify({ projectKey: "x", pad: randomBytes(bytes).toString("base64") }));

describe("oversized bodies over real HTTP (the default drain bounds)", () => {
  let t: TestApp;
  let a: Tenant;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
    a = await t.tenant();
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => t?.close());

  function requests(): Sent[] {
    const json = { "content-type": "application/json" };
    const gzip = { ...json, "content-encoding": "gzip" };
    const segmentAuth = { authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}` };
    const key = { ...json, "x-api-key": a.apiKey };
    const events4 = jsonBody(4 * MiB);
    const gz = gzipSync(incompressible(3 * MiB));
    return [
      // Content-Length known too large: answered before a byte of the body is read.
      { path: "/api/events", headers: json, body: events4 },
      // Chunked: read up to the limit, then answered.
      { path: "/api/events", headers: json, body: events4, chunked: true },
      { path: "/api/events", headers: { "content-type": "text/plain" }, body: jsonBody(3 * MiB) },
      // gzip: compressed bytes past the limit (known or found), and the decompressed cap.
      { path: "/api/events", headers: gzip, body: gz },
      { path: "/api/events", headers: gzip, body: gz, chunked: true },
      { path: "/v1/batch", headers: { ...gzip, ...segmentAuth }, body: gz, chunked: true },
      { path: "/v1/batch", headers: { ...gzip, ...segmentAuth }, body: gz },
      { path: "/v1/track", headers: { ...json, ...segmentAuth }, body: jsonBody(2 * MiB), chunked: true },
      { path: "/api/goals", headers: key, body: jsonBody(8 * MiB) },
      { path: "/api/goals", headers: key, body: jsonBody(2 * MiB), chunked: true },
    ];
  }

  const describeSent = (s: Sent) =>
    `${s.path} ${s.headers["content-encoding"] ?? ""} ${s.chunked ? "chunked" : "content-length"} ${s.body.length}`;

  it("every client gets 413 in the general format and no reset, many at once", async () => {
    const sent = [...requests(), ...requests(), ...requests()];
    const viaHttp = requests().filter((s) => !s.chunked);
    const outcomes = await Promise.all([
      ...sent.map((s) => send(port, s)),
      ...viaHttp.map((s) => sendWithNodeHttp(port, s)),
    ]);
    const all = [...sent, ...viaHttp];
    const problems = outcomes.flatMap((o, i) => {
      const what = `${i < sent.length ? "net" : "node:http"} ${describeSent(all[i]!)}`;
      if (o.error) return [`${what}: ${o.error} after ${o.written} bytes, status ${o.status}`];
      if (o.status !== 413 || !isTooLarge(o.body))
        return [`${what}: ${o.status} ${JSON.stringify(o.body).slice(0, 120)}`];
      // The connection stayed until the client had written its whole body.
      if (o.written !== all[i]!.body.length) return [`${what}: closed after ${o.written} bytes`];
      return [];
    });
    expect(problems).toEqual([]);
    expect(outcomes[0]!.body).toEqual(tooLarge);
    const alive = await t.app.inject({ method: "GET", url: "/healthz" });
    expect(alive.statusCode).toBe(200);
  }, 60_000);
});

describe("the drain is bounded", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ bodyDrain: { maxBytes: 2 * MiB, maxMs: 2_000 } });
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => t?.close());

  it("a body past the byte bound is answered 413, then the connection is closed", async () => {
    // 256 MiB declared, written as fast as the server reads: the same slice over and over.
    const slice = Buffer.alloc(SLICE, 0x61);
    const endless = { length: 256 * MiB, subarray: () => slice } as unknown as Buffer;
    const o = await send(port, {
      path: "/api/events",
      headers: { "content-type": "application/json" },
      body: endless,
    });
    expect(o.status).toBe(413);
    expect(o.body).toEqual(tooLarge);
    // Cut near the 2 MiB bound (plus what the kernel buffers), far from the 256 MiB announced.
    expect(o.written).toBeLessThan(64 * MiB);
  });

  it("a client that stops sending is answered 413, then closed after the time bound", async () => {
    const o = await send(port, {
      path: "/api/events",
      headers: { "content-type": "application/json" },
      body: jsonBody(3 * MiB),
      stallAfter: MiB,
    });
    expect(o.status).toBe(413);
    expect(o.body).toEqual(tooLarge);
    expect(o.written).toBe(MiB);
  });
});
