import { EventEmitter } from "node:events";
import http, { type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import type { PayloadCache, PayloadEntry } from "./sdk-cache.js";
import { flagStreams } from "./service.js";
import { FlagStreams, STREAM_DEFAULTS } from "./streams.js";
import { until } from "./flags.testing.js";

/** GET /sub/:clientKey as GrowthBook's SDKs read it, over a real socket. */
interface RawStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: { event: string; data: string }[];
  ended: Promise<void>;
  close(): void;
}

function openStream(base: string, key: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const options = { headers: { origin: "https://shop.example", ...headers } };
    const req = http.get(`${base}/sub/${key}`, options, (res) => {
      const events: RawStream["events"] = [];
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let cut = buffer.indexOf("\n\n");
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          if (event) events.push({ event, data: /^data: ?(.*)$/m.exec(block)?.[1] ?? "" });
          cut = buffer.indexOf("\n\n");
        }
      });
      const ended = new Promise<void>((r) => res.once("end", () => r()));
      resolve({ status: res.statusCode!, headers: res.headers, events, ended, close: () => req.destroy() });
    });
    req.on("error", reject);
  });
}

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

const payloadOf = async (a: Tenant) => (await a.get(`/api/features/${a.publicKey}`, { as: "none" })).text;

describe("GET /sub/:clientKey", () => {
  it("is an open-CORS event stream: the payload at once, then a `features` event per change", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "s1", valueType: "string", defaultValue: "a" });
    const s = await openStream(base, a.publicKey);
    expect(s.status).toBe(200);
    expect(s.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(s.headers["access-control-allow-origin"]).toBe("*");
    expect(s.headers["cache-control"]).toContain("no-cache");
    await until(() => s.events.length === 1, "the first event");
    expect(s.events[0]).toEqual({ event: "features", data: await payloadOf(a) });
    await a.patch("/api/flags/s1", { defaultValue: "b" });
    await until(() => s.events.length === 2, "the change");
    expect(JSON.parse(s.events[1]!.data).features.s1).toEqual({ defaultValue: "b" });
    expect(s.events[1]!.data).toBe(await payloadOf(a));
    // Another project's change is not this stream's business.
    const other = await t.tenant();
    await other.post("/api/flags", { key: "elsewhere", valueType: "boolean", defaultValue: true });
    await a.patch("/api/flags/s1", { defaultValue: "c" });
    await until(() => s.events.length === 3, "the next change");
    expect(s.events.map((e) => e.data).join()).not.toContain("elsewhere");
    s.close();
  });

  it("with remoteEvalOnly, says only `features-updated` (no payload, so no rules)", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "hidden", valueType: "string", defaultValue: "x" });
    await a.put("/api/flag-settings", { remoteEvalOnly: true });
    const s = await openStream(base, a.publicKey);
    await a.patch("/api/flags/hidden", {
      rules: [{ type: "force", condition: { plan: "secret-plan" }, value: "y" }],
    });
    await until(() => s.events.length === 1, "the beacon");
    expect(s.events).toEqual([{ event: "features-updated", data: "" }]);
    s.close();
  });

  it("with the secret key (a server's SDK, holding the server payload), says only `features-updated`", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "srv", valueType: "string", defaultValue: "x" });
    const s = await openStream(base, a.publicKey, { authorization: `Bearer ${a.apiKey}` });
    expect(s.status).toBe(200);
    await a.patch("/api/flags/srv", { defaultValue: "y" });
    await until(() => s.events.length === 1, "the beacon");
    expect(s.events).toEqual([{ event: "features-updated", data: "" }]);
    s.close();
    const wrong = await openStream(base, a.publicKey, { authorization: `Bearer ${a.publicKey}` });
    expect(wrong.status).toBe(401);
    wrong.close();
  });

  it("is ended by the server's shutdown (which then completes)", async () => {
    const own = await startTestApp();
    await own.app.listen({ host: "127.0.0.1", port: 0 });
    const a = await own.tenant();
    const s = await openStream(
      `http://127.0.0.1:${(own.app.server.address() as AddressInfo).port}`,
      a.publicKey,
    );
    await until(() => flagStreams(own.app.deps).size === 1, "the stream");
    await own.close();
    await s.ended;
    expect(flagStreams(own.app.deps).size).toBe(0);
  });
});

describe("FlagStreams", () => {
  /** A response that never drains (a client that stopped reading). */
  class StuckResponse extends EventEmitter {
    writableLength = 0;
    destroyed = false;
    written = 0;
    write(chunk: Buffer) {
      this.writableLength += chunk.length;
      this.written++;
      return false;
    }
    end() {
      this.emit("close");
    }
    destroy() {
      this.destroyed = true;
      this.emit("close");
    }
  }
  const entry = (etag: string): PayloadEntry =>
    ({ etag, body: "x".repeat(1024 * 1024), remoteEvalOnly: false }) as unknown as PayloadEntry;

  it("drops a stream whose client stopped reading, and counts its limit", async () => {
    let current = entry('"1"');
    const cache = { get: async () => current, invalidate() {} } as unknown as PayloadCache;
    const streams = new FlagStreams(cache, t.app.log, {
      ...STREAM_DEFAULTS,
      maxStreams: 2,
      maxBuffered: 3 * 1024 * 1024,
    });
    const stuck = new StuckResponse();
    streams.open("p", stuck as unknown as ServerResponse, current);
    expect(streams.size).toBe(1);
    expect(streams.full()).toBe(false);
    for (let i = 2; i <= 6 && !stuck.destroyed; i++) {
      current = entry(`"${i}"`);
      streams.changed("p");
      await until(() => stuck.written === i || stuck.destroyed, "a push");
    }
    // 1 MiB per payload: past 3 MiB unsent, the stream is closed rather than buffered further.
    expect(stuck.destroyed).toBe(true);
    expect(stuck.written).toBe(3);
    expect(streams.size).toBe(0);
    streams.open("p", new StuckResponse() as unknown as ServerResponse, current);
    streams.open("q", new StuckResponse() as unknown as ServerResponse, current);
    expect(streams.full()).toBe(true);
    streams.closeAll();
    expect(streams.size).toBe(0);
  });
});
