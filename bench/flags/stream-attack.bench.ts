/**
 * GET /sub/:clientKey as an attacker uses it: ADDRESSES loopback addresses (21) each ask PER (1,000)
 * streams and never read them, from three processes, while this process samples `/healthz` every
 * 50 ms. Lift runs in a child process of its own (SQLite, default settings), so its descriptor
 * table is its own. Prints the streams accepted and refused, and `/healthz`'s failures and worst
 * latency. Linux only (127.0.1.x source addresses). Run: npx tsx bench/flags/stream-attack.bench.ts
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const [role, ...args] = process.argv.slice(2);
const child = (...argv: string[]) =>
  spawn(process.execPath, ["--import", "tsx", SELF, ...argv], { stdio: ["ignore", "pipe", "inherit"] });
const firstLine = (c: ChildProcess) =>
  new Promise<string>((r) => c.stdout!.once("data", (b: Buffer) => r(b.toString().trim())));

if (role === "server") {
  const { buildApp } = await import("../../src/app.js");
  const { loadConfig } = await import("../../src/config.js");
  const { provisionWorkspace } = await import("../../src/modules/workspace/bootstrap.js");
  const dataDir = mkdtempSync(path.join(tmpdir(), "lift-bench-attack-"));
  const config = {
    ...loadConfig(
      { ...process.env, DATABASE_URL: "" },
      { dataDir, secretKey: randomBytes(32).toString("base64url") },
    ),
    startWorkers: false,
    logLevel: "silent",
  };
  const app = await buildApp(config, { logger: false });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const p = await provisionWorkspace(app.db, {
    name: "W",
    email: "a@example.com",
    password: "correct horse battery",
  });
  console.log(JSON.stringify({ port: (app.server.address() as AddressInfo).port, key: p.project.publicKey }));
} else if (role === "attacker") {
  // Reads each answer's status line, then stops reading; keeps every connection open.
  const [port, key, per, ...from] = args as [string, string, string, ...string[]];
  const tally = { accepted: 0, refused: 0, other: 0, failed: 0 };
  const jobs = from.flatMap((a) => Array<string>(Number(per)).fill(a));
  const one = (localAddress: string) =>
    new Promise<void>((resolve) => {
      const s = net.connect({ host: "127.0.0.1", port: Number(port), localAddress });
      s.once("error", () => {
        tally.failed++;
        resolve();
      });
      s.once("data", (b: Buffer) => {
        s.pause();
        const status = Number(b.toString("latin1").slice(9, 12));
        if (status === 200) tally.accepted++;
        else if (status === 429 || status === 503) tally.refused++;
        else tally.other++;
        resolve();
      });
      s.write(`GET /sub/${key} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    });
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < jobs.length) await one(jobs[next++]!);
    }),
  );
  console.log(JSON.stringify(tally));
  setInterval(() => {}, 60_000);
} else {
  const ADDRESSES = Number(process.env.ADDRESSES ?? 21);
  const PER = Number(process.env.PER ?? 1000);
  const server = child("server");
  const { port, key } = JSON.parse(await firstLine(server)) as { port: number; key: string };
  const samples: number[] = [];
  let failures = 0;
  const sample = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const req = http.get(
        { host: "127.0.0.1", port, path: "/healthz", agent: false, timeout: 5000 },
        (res) => {
          res.resume();
          res.on("end", () => {
            samples.push(performance.now() - t0);
            resolve();
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", () => {
        failures++;
        samples.push(performance.now() - t0);
        resolve();
      });
    });
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await sample();
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const addresses = Array.from({ length: ADDRESSES }, (_, i) => `127.0.1.${i + 1}`);
  const third = Math.ceil(ADDRESSES / 3);
  const tallies: Record<string, number>[] = [];
  const attackers = [0, 1, 2].map((k) => {
    const c = child(
      "attacker",
      String(port),
      key,
      String(PER),
      ...addresses.slice(k * third, (k + 1) * third),
    );
    void firstLine(c).then((line) => tallies.push(JSON.parse(line)));
    return c;
  });
  const started = Date.now();
  while (tallies.length < 3 && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 200));
  const attackMs = Date.now() - started;
  // The streams stay open a little longer.
  await new Promise((r) => setTimeout(r, 5000));
  sampling = false;
  await sampler;
  const total = (k: string) => tallies.reduce((n, t) => n + (t[k] ?? 0), 0);
  samples.sort((a, b) => a - b);
  console.log(
    `${ADDRESSES} addresses × ${PER} streams: ${attackers.length - tallies.length} attacker processes never finished (${attackMs} ms); ` +
      `accepted ${total("accepted")}, refused ${total("refused")}, failed ${total("failed")}, other ${total("other")}`,
  );
  console.log(
    `/healthz: ${samples.length} samples, ${failures} failed, median ${samples[samples.length >> 1]!.toFixed(0)} ms, ` +
      `worst ${samples.at(-1)!.toFixed(0)} ms`,
  );
  for (const c of [...attackers, server]) c.kill();
}
