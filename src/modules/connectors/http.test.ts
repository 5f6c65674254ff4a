import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient, PlatformError, collectPages, parseRetryAfter } from "./http.js";

/** The shared platform HTTP client against a real local server whose answers are scripted. */
let server: Server;
let base = "";
let script: Array<{ status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }> =
  [];
const seen: Array<{ method: string; url: string; auth?: string; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      const next = script.shift() ?? { status: 200, body: { ok: true } };
      setTimeout(() => {
        res.writeHead(next.status, { "content-type": "application/json", ...(next.headers ?? {}) });
        res.end(next.body === undefined ? "" : JSON.stringify(next.body));
      }, next.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const client = (over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
  new HttpClient({ timeoutMs: 2000, maxRetries: 3, retryScale: 0.001, maxWaitMs: 1000, ...over });

describe("HttpClient", () => {
  it("retries 429 and 503, honouring Retry-After, then returns the JSON body", async () => {
    seen.length = 0;
    script = [
      { status: 429, headers: { "retry-after": "4" }, body: { error: { message: "slow down" } } },
      { status: 503, body: "upstream" },
      { status: 200, body: { value: 42 } },
    ];
    const started = Date.now();
    // Retry-After 4 s scaled by 0.2: at least 800 ms between the first and second request. A lower
    // bound only, so a loaded machine cannot fail it.
    const res = await client({ retryScale: 0.2 }).request<{ value: number }>(`${base}/x`, {
      query: { a: 1, b: undefined },
      bearer: "tok",
    });
    expect(res).toEqual({ value: 42 });
    expect(seen).toHaveLength(3);
    expect(seen[0]!.url).toBe("/x?a=1");
    expect(seen[0]!.auth).toBe("Bearer tok");
    expect(Date.now() - started).toBeGreaterThanOrEqual(795);
  });

  it("gives up after maxRetries with the platform's message", async () => {
    script = Array.from({ length: 4 }, () => ({ status: 500, body: { message: "HubSpot is down" } }));
    const err = await client()
      .request(`${base}/y`)
      .catch((e) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ status: 500, platformMessage: "HubSpot is down" });
  });

  it("does not sleep on a Retry-After longer than maxWaitMs: 429 goes back to the job with the wait", async () => {
    seen.length = 0;
    script = [{ status: 429, headers: { "retry-after": "3600" }, body: { error: { message: "quota" } } }];
    const err = await client({ retryScale: 1 })
      .request(`${base}/z`)
      .catch((e) => e);
    expect(seen).toHaveLength(1);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 3_600_000 });
  });

  it("4xx other than 429 is not retried; form bodies and Basic auth are encoded", async () => {
    seen.length = 0;
    script = [{ status: 400, body: { error: "invalid_grant", error_description: "Bad code" } }];
    const err = await client()
      .request(`${base}/token`, {
        form: { grant_type: "x", code: "a b" },
        basic: { user: "id", password: "s:t" },
      })
      .catch((e) => e);
    expect(err).toMatchObject({ status: 400, platformMessage: "Bad code" });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toBe("grant_type=x&code=a+b");
    expect(seen[0]!.auth).toBe(`Basic ${Buffer.from("id:s%3At").toString("base64")}`);
  });

  it("times out and reports the host only (no query string)", async () => {
    script = Array.from({ length: 2 }, () => ({ status: 200, body: {}, delayMs: 300 }));
    const err = await client({ timeoutMs: 50, maxRetries: 1 })
      .request(`${base}/slow`, { query: { client_secret: "shh" } })
      .then(
        () => null,
        (e: PlatformError) => e,
      );
    expect(err).toMatchObject({ status: 503 });
    expect(err?.message).toMatch(/timed out/);
    expect(err?.message).not.toContain("shh");
  });

  it("parses Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("7", now)).toBe(7000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });

  it("collectPages follows cursors until there is none", async () => {
    const pages: Record<string, { items: number[]; next?: string }> = {
      start: { items: [1, 2], next: "p2" },
      p2: { items: [3], next: "p3" },
      p3: { items: [4] },
    };
    expect(await collectPages<number, string>("start", async (c) => pages[c!]!)).toEqual([1, 2, 3, 4]);
  });
});
