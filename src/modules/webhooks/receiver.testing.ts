import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestApp } from "../../../test/helpers/app.js";
import { type ServiceEventType, emitServiceEvent } from "../../platform/jobs/index.js";

/** A self-signed certificate made for this test run (EC P-256: fast), valid for localhost names. */
export function makeSelfSignedCert(names = ["localhost", "pinned.example.test"]): {
  key: string;
  cert: string;
} {
  const dir = mkdtempSync(path.join(tmpdir(), "lift-cert-"));
  try {
    const san = [...names.map((n) => `DNS:${n}`), "IP:127.0.0.1", "IP:::1"].join(",");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        `subjectAltName=${san}`,
      ],
      { stdio: "ignore" },
    );
    return {
      key: readFileSync(path.join(dir, "key.pem"), "utf8"),
      cert: readFileSync(path.join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Received {
  /** Path and query the delivery was sent to. */
  path: string;
  headers: Record<string, string>;
  body: string;
  servername: string | undefined;
}

/**
 * An HTTPS receiver on 127.0.0.1 whose answer per request is decided by `respond`
 * (status and optional headers); every request is recorded.
 */
export async function startReceiver(
  tls: { key: string; cert: string },
  respond: (n: number, r: Received) => { status: number; headers?: Record<string, string> },
) {
  const received: Received[] = [];
  const server = https.createServer(tls, (req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      const r: Received = {
        path: req.url ?? "/",
        headers,
        body,
        servername: (req.socket as { servername?: string }).servername,
      };
      received.push(r);
      const out = respond(received.length, r);
      res.writeHead(out.status, out.headers ?? {});
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Runs due jobs until `check` holds or the deadline passes (retries are milliseconds apart in tests). */
export async function drainUntil(
  app: { worker: { drain(): Promise<void> } },
  check: () => Promise<boolean>,
  deadlineMs = 10_000,
): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    await app.worker.drain();
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 2));
  }
  return check();
}

/**
 * A new tenant subscribed to `events` at the receiver on `port`, and `emit`, which fires a service
 * event in that tenant's project (as the other modules do).
 */
export async function subscribedTenant(t: TestApp, port: number, events: ServiceEventType[]) {
  const a = await t.tenant();
  const wh = await a.post("/api/webhooks", { url: `https://127.0.0.1:${port}/`, events });
  const emit = (type: ServiceEventType, data: unknown = {}) =>
    emitServiceEvent(t.app.db, { workspaceId: a.workspaceId, projectId: a.projectId }, type, data);
  return { a, wh, emit };
}
