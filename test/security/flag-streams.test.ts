import { execFileSync } from "node:child_process";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { GrowthBook, clearCache, setPolyfills } from "@growthbook/growthbook";
import { EventSource } from "eventsource";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../src/config.js";
import { flagStreams } from "../../src/modules/flags/service.js";
import { type Tenant, type TestApp, startTestApp } from "../helpers/app.js";
import { waitFor } from "../helpers/net.js";

/**
 * `GET /sub/:clientKey` takes a public key anyone can read. Before, one address could open
 * streams until the descriptor table was full (then `/healthz` was refused), one key could take
 * every stream of the process, a stream lived for ever, and a client that stopped reading was
 * never dropped: the kernel's socket buffers hid what waited for it from Node's count.
 */

setPolyfills({ EventSource });

type StreamSettings = Config["flagStreams"];
const settings = (o: Partial<StreamSettings>): StreamSettings => ({
  perAddress: 100,
  perKey: undefined,
  max: 20_000,
  lifetimeMs: 600_000,
  stallMs: 30_000,
  ...o,
});

async function serve(flagStreamsConfig: StreamSettings) {
  const t = await startTestApp({
    rateLimits: { events: 0, reads: 0, writes: 0 },
    flagStreams: flagStreamsConfig,
  });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  return { t, port: (t.app.server.address() as AddressInfo).port };
}

interface Sub {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The JSON body of a refusal. */
  body: () => Promise<any>;
  text: () => string;
  ended: Promise<void>;
  close(): void;
}
const open: Sub[] = [];

/** An SDK's stream request, from a loopback address of its own (Linux routes all of 127/8). */
function sub(port: number, key: string, from = "127.0.0.1"): Promise<Sub> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: "127.0.0.1", port, path: `/sub/${key}`, localAddress: from, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        const ended = new Promise<void>((r) => res.once("end", () => r()));
        const s: Sub = {
          status: res.statusCode!,
          headers: res.headers,
          body: () => ended.then(() => JSON.parse(text)),
          text: () => text,
          ended,
          close: () => req.destroy(),
        };
        open.push(s);
        resolve(s);
      },
    );
    req.on("error", reject);
  });
}

function closeAll() {
  for (const s of open.splice(0)) s.close();
}
afterEach(() => {
  closeAll();
  clearCache();
});

async function refused(s: Sub, status: number, code: string) {
  expect(s.status).toBe(status);
  expect(Number(s.headers["retry-after"])).toBeGreaterThan(0);
  // Closed, not kept alive: a refused client's idle connection would hold a descriptor.
  expect(s.headers.connection).toBe("close");
  const body = await s.body();
  expect(body).toMatchObject({ code, status });
  expect(typeof body.error).toBe("string");
  expect(typeof body.requestId).toBe("string");
}

describe("caps on open streams", () => {
  let t: TestApp;
  let port: number;
  const size = () => flagStreams(t.app.deps).size;
  beforeAll(async () => {
    // 12 descriptors: half of them, 6, for streams.
    ({ t, port } = await serve(settings({ perAddress: 2, perKey: 3, openFiles: 12 })));
  });
  afterAll(async () => t?.close());
  afterEach(async () => {
    closeAll();
    await waitFor(() => size() === 0);
  });

  it("per address: the third stream from one address is 429, another address still connects", async () => {
    const a = await t.tenant();
    expect((await sub(port, a.publicKey, "127.0.0.2")).status).toBe(200);
    expect((await sub(port, a.publicKey, "127.0.0.2")).status).toBe(200);
    await refused(await sub(port, a.publicKey, "127.0.0.2"), 429, "RATE_LIMITED");
    expect((await sub(port, a.publicKey, "127.0.0.3")).status).toBe(200);
    expect(size()).toBe(3);
    // A closed stream gives its place back.
    open[0]!.close();
    await waitFor(() => size() === 2);
    expect((await sub(port, a.publicKey, "127.0.0.2")).status).toBe(200);
  });

  it("per key: one project's streams cannot take another project's", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    for (const from of ["127.0.0.4", "127.0.0.4", "127.0.0.5"])
      expect((await sub(port, a.publicKey, from)).status).toBe(200);
    await refused(await sub(port, a.publicKey, "127.0.0.6"), 429, "RATE_LIMITED");
    expect((await sub(port, b.publicKey, "127.0.0.6")).status).toBe(200);
  });

  it("the process's cap is half its descriptor limit: past it, 503 with Retry-After", async () => {
    const [a, b, c] = [await t.tenant(), await t.tenant(), await t.tenant()];
    const plan: [Tenant, string][] = [
      [a, "127.0.0.7"],
      [a, "127.0.0.7"],
      [a, "127.0.0.8"],
      [b, "127.0.0.8"],
      [b, "127.0.0.9"],
      [b, "127.0.0.9"],
    ];
    for (const [tenant, from] of plan) expect((await sub(port, tenant.publicKey, from)).status).toBe(200);
    await refused(await sub(port, c.publicKey, "127.0.0.10"), 503, "UNAVAILABLE");
    expect(flagStreams(t.app.deps).limit).toBe(6);
  });

  it("GrowthBook's SDK, refused, keeps its payload, retries with backoff and connects once there is room", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "banner", valueType: "string", defaultValue: "v0" });
    for (const from of ["127.0.0.12", "127.0.0.12", "127.0.0.13"])
      expect((await sub(port, a.publicKey, from)).status).toBe(200);
    const statuses: number[] = [];
    const watch = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.url === `/sub/${a.publicKey}`) res.once("finish", () => statuses.push(res.statusCode));
    };
    t.app.server.on("request", watch);
    const gb = new GrowthBook({ apiHost: `http://127.0.0.1:${port}`, clientKey: a.publicKey });
    try {
      await gb.init({ streaming: true, timeout: 5000 });
      expect(gb.getFeatureValue("banner", "?")).toBe("v0");
      await waitFor(() => statuses.length >= 2, 15_000);
      expect(statuses.slice(0, 2)).toEqual([429, 429]);
      // A place frees up: the SDK's next attempt takes it.
      open[0]!.close();
      await waitFor(() => flagStreams(t.app.deps).size === 2);
      await waitFor(() => flagStreams(t.app.deps).size === 3, 20_000);
      await a.patch("/api/flags/banner", { defaultValue: "v1" });
      await waitFor(() => gb.getFeatureValue("banner", "?") === "v1", 20_000);
    } finally {
      gb.destroy();
      // Closes the SDK's stream (its module keeps streams across instances).
      clearCache();
      t.app.server.off("request", watch);
    }
  });
});

describe("default caps, a 1 s stream lifetime", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    ({ t, port } = await serve(settings({ lifetimeMs: 1_000 })));
  });
  afterAll(async () => t?.close());

  it("the process's cap comes from its own descriptor limit when none is configured", () => {
    // A child shell inherits this process's soft limit.
    const soft = Number(execFileSync("/bin/sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim());
    expect(flagStreams(t.app.deps).limit).toBe(Math.min(20_000, Math.floor(soft / 2)));
  });

  it("the server ends a stream cleanly after its lifetime (less at most a quarter of jitter)", async () => {
    const a = await t.tenant();
    const started = Date.now();
    const s = await sub(port, a.publicKey);
    expect(s.status).toBe(200);
    let ended = false;
    void s.ended.then(() => {
      ended = true;
    });
    await waitFor(() => ended, 15_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
    expect(s.text()).toContain("event: features");
    await waitFor(() => flagStreams(t.app.deps).size === 0);
  });

  it("GrowthBook's SDK reconnects and keeps getting changes", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "banner", valueType: "string", defaultValue: "v0" });
    let subs = 0;
    const count = (req: http.IncomingMessage) => {
      if (req.url === `/sub/${a.publicKey}`) subs++;
    };
    t.app.server.on("request", count);
    const gb = new GrowthBook({ apiHost: `http://127.0.0.1:${port}`, clientKey: a.publicKey });
    try {
      await gb.init({ streaming: true, timeout: 5000 });
      await waitFor(() => subs >= 2, 20_000);
      await a.patch("/api/flags/banner", { defaultValue: "v1" });
      await waitFor(() => gb.getFeatureValue("banner", "?") === "v1", 10_000);
      expect(flagStreams(t.app.deps).size).toBeLessThanOrEqual(1);
    } finally {
      gb.destroy();
      t.app.server.off("request", count);
    }
  });
});

describe("a client that stops reading", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    ({ t, port } = await serve(settings({ stallMs: 1_000 })));
  });
  afterAll(async () => t?.close());

  it("is dropped once its output has waited the stall timeout; a reading client is not", async () => {
    const a = await t.tenant();
    // 32 flags of 16 KB: each change pushes ~512 KB to every stream.
    const big = (n: number) => `${n}`.padEnd(16_000, "x");
    for (let i = 0; i < 32; i++) {
      const made = await a.post("/api/flags", { key: `f${i}`, valueType: "string", defaultValue: big(0) });
      expect(made.status).toBe(201);
    }
    const reader = await sub(port, a.publicKey);
    // The server's end of the stalled connection: what it queues, and whether it is closed.
    let server: net.Socket | undefined;
    const spot = (socket: net.Socket) => {
      if (socket.remoteAddress === "127.0.0.11") server = socket;
    };
    t.app.server.on("connection", spot);
    const stalled = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.11" });
    stalled.pause();
    let gone = false;
    stalled.on("error", () => {
      gone = true;
    });
    stalled.on("close", () => {
      gone = true;
    });
    stalled.write(`GET /sub/${a.publicKey} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    const size = () => flagStreams(t.app.deps).size;
    await waitFor(() => size() === 2 && server !== undefined);
    const events = () => reader.text().split("event: features").length - 1;
    // Changes until the kernel's buffers for the stalled client are full and Node starts queueing
    // (a few MB on Linux): far below the 4 MiB Node may queue, so only the stall rule can drop it.
    let pushes = 0;
    let pushed = 0;
    while (!server!.destroyed && server!.writableLength === 0 && pushes < 60) {
      pushes++;
      expect((await a.patch("/api/flags/f0", { defaultValue: big(pushes) })).status).toBe(200);
      await waitFor(() => events() === pushes + 1, 15_000);
      pushed = reader.text().length;
    }
    const full = Date.now();
    expect(server!.destroyed || server!.writableLength > 0).toBe(true);
    expect(server!.writableLength).toBeLessThan(4 * 1024 * 1024);
    await waitFor(() => size() === 1, 15_000);
    const dropMs = Date.now() - full;
    expect(server!.destroyed).toBe(true);
    // The reading client has every payload and is still connected.
    expect(events()).toBe(pushes + 1);
    expect(size()).toBe(1);
    // The stalled connection is gone, not only forgotten: reading it now ends in a reset.
    stalled.resume();
    await waitFor(() => gone, 15_000);
    t.app.server.off("connection", spot);
    process.stdout.write(
      `stalled stream dropped ${dropMs} ms after its queue started (${pushes} pushes, ~${pushed} bytes)\n`,
    );
  });
});
