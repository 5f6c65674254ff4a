import { type ChildProcess, spawn } from "node:child_process";
import https from "node:https";
import path from "node:path";
import pg from "pg";
import { makeSelfSignedCert } from "../../src/modules/webhooks/receiver.testing.js";
import { freePort } from "../helpers/net.js";

/** The processes of two-processes.test.ts and what they are checked with: no assertions here. */
const ROOT = path.resolve(import.meta.dirname, "../..");

export interface Proc {
  name: string;
  child: ChildProcess;
  base: string;
  output: () => string;
}

const children: ChildProcess[] = [];

/** SIGKILLs every process started here that is still running (also on the test runner's exit). */
export const killAll = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
};

/** Kills them all and waits until each has closed. */
export async function stopAll(): Promise<void> {
  killAll();
  await Promise.all(
    children.map((c) =>
      c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("close", r)) : null,
    ),
  );
}

/** `node --import tsx src/main.ts` with exactly the given database and Redis; healthy (Redis up). */
export async function startLift(name: string, env: NodeJS.ProcessEnv): Promise<Proc> {
  const port = await freePort();
  const base = { ...process.env };
  // Whatever the CI stage put in the environment, the test chooses the database and the Redis.
  delete base.DATABASE_URL;
  delete base.REDIS_URL;
  delete base.SMTP_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...base, HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (c) => {
    out += c;
  });
  child.stderr!.on("data", (c) => {
    out += c;
  });
  const proc = { name, child, base: `http://127.0.0.1:${port}`, output: () => out };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${out}`);
    const health = await fetch(`${proc.base}/healthz`).then(
      async (r) => (r.ok ? ((await r.json()) as { status: string }) : undefined),
      () => undefined,
    );
    // "ok", not "degraded": with REDIS_URL, Redis is connected before the first event arrives.
    if (health?.status === "ok") return proc;
    if (Date.now() > deadline) throw new Error(`${name} did not become healthy: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A process's warnings and errors (pino lines), short: for the message of a failed assertion. */
export const problems = (p: Proc) =>
  p
    .output()
    .split("\n")
    .filter((l) => /"level":(40|50|60)/.test(l) && !l.includes("ALLOW_PRIVATE_WEBHOOK_TARGETS"))
    .map((l) => {
      const { msg, err } = JSON.parse(l) as { msg?: string; err?: { message?: string; stack?: string } };
      const where = err?.stack?.split("\n").find((s) => s.includes("/src/"));
      return `${msg}: ${err?.message ?? ""} ${where?.trim() ?? ""}`;
    })
    .slice(-5)
    .join("\n");

/** A value a process printed at its first start (`label: value`). */
export const printed = (output: string, label: string) => {
  const m = new RegExp(`${label}:\\s+(\\S+)`).exec(output);
  if (!m) throw new Error(`no ${label} printed: ${output}`);
  return m[1]!;
};

/** One query on a connection of its own. */
export async function query<T = Record<string, unknown>>(url: string, text: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows as T[];
  } finally {
    await c.end();
  }
}

export interface Delivery {
  eventId: string;
  type: string;
  messageId: string;
}

/**
 * A webhook receiver over HTTPS with a self-signed certificate (the processes trust it through
 * NODE_EXTRA_CA_CERTS = a file holding `cert`). It answers each delivery after 40 ms, so that
 * deliveries of two processes' workers overlap (each worker runs one job at a time).
 */
export function webhookReceiver() {
  const tls = makeSelfSignedCert();
  const delivered: Delivery[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = https.createServer(tls, (req, res) => {
    req.on("error", () => {});
    res.on("error", () => {});
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const p = JSON.parse(body) as { id: string; type: string };
      delivered.push({ eventId: p.id, type: p.type, messageId: String(req.headers["webhook-id"]) });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200).end("ok");
      }, 40);
    });
  });
  return { server, cert: tls.cert, delivered, maxInFlight: () => maxInFlight };
}
