import type { AddressInfo } from "node:net";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, call, type LiftProcess, type LiftStore, liftStore } from "./lift-process.js";

/**
 * Transactional sends with an Idempotency-Key, the server SIGKILLed while the SMTP peer holds the
 * conversation at connect, RCPT TO or DATA; after a restart the client retries with the same key.
 * Each key's message is delivered exactly once (same Message-ID as the acknowledged send), and the
 * record ends `sent`. A retry is answered within the 15 s lock lease, not after two minutes.
 */
type Stage = "connect" | "rcpt" | "data";

interface HoldingPeer {
  url: string;
  holdAt: Stage | null;
  /** Resolves when a conversation reaches `holdAt` (and is held there). */
  reached: () => Promise<void>;
  messages: { messageId: string; sendId: string }[];
  close: () => Promise<void>;
}

async function startHoldingPeer(): Promise<HoldingPeer> {
  let signal: (() => void) | null = null;
  const peer: HoldingPeer = {
    url: "",
    holdAt: null,
    reached: () => new Promise<void>((r) => (signal = r)),
    messages: [],
    close: async () => {},
  };
  // A held conversation never gets its answer: the client's process is killed meanwhile.
  const holdHere = (stage: Stage, go: () => void) => {
    if (peer.holdAt !== stage) return go();
    signal?.();
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onConnect: (_session, cb) => holdHere("connect", () => cb()),
    onRcptTo: (_address, _session, cb) => holdHere("rcpt", () => cb()),
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () =>
        holdHere("data", async () => {
          const mail = await PostalMime.parse(Buffer.concat(chunks));
          const sendId = mail.headers.find((h) => h.key === "x-lift-send-id")?.value ?? "";
          peer.messages.push({ messageId: (mail.messageId ?? "").replace(/^<|>$/g, ""), sendId });
          cb(null);
        }),
      );
    },
  });
  // A killed client resets its connection: the peer logs nothing and goes on (an unhandled
  // 'error' event would crash the test process).
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  peer.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  peer.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return peer;
}

let store: LiftStore;
let peer: HoldingPeer;
beforeAll(async () => {
  store = await liftStore("email");
  peer = await startHoldingPeer();
});
afterAll(async () => {
  await store?.dispose();
  await peer?.close();
});

async function mintTxKey(p: LiftProcess): Promise<{ txKey: string; cookie: string }> {
  const login = await fetch(`${p.base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ADMIN),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const minted = await call(p.base, "POST", "/api/transactional-api-keys", {
    body: { name: "crash test" },
    headers: { cookie },
  });
  expect(minted.status).toBe(201);
  return { txKey: minted.body.rawKey, cookie };
}

const send = (p: LiftProcess, txKey: string, key: string, to: string) =>
  call(p.base, "POST", "/api/v1/transactional/send", {
    body: { to, subject: `Receipt for ${to}`, html: `<p>Thanks, ${to}</p>` },
    headers: { authorization: `Bearer ${txKey}`, "idempotency-key": key },
  });

async function until<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  ms: number,
  everyMs = 200,
): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return undefined;
}

describe("transactional sends across a SIGKILL at each SMTP stage", () => {
  it("each key is delivered exactly once with its Message-ID, and the record ends sent", async () => {
    const env = { SMTP_URL: "" };
    let server = await store.start({ ...env, SMTP_URL: peer.url });
    const { txKey, cookie } = await mintTxKey(server);
    const stages: Stage[] = ["connect", "rcpt", "data"];
    const outcome: string[] = [];
    for (const stage of stages) {
      const key = `crash-${stage}`;
      const to = `${stage}@customer.example`;
      peer.holdAt = stage;
      const reached = peer.reached();
      const first = send(server, txKey, key, to).catch(() => null); // never answered: killed
      await reached;
      await server.kill();
      await first;
      peer.holdAt = null;
      server = await store.start({ ...env, SMTP_URL: peer.url });

      const retriedAt = Date.now();
      let attempts = 0;
      const answer = await until(
        async () => {
          attempts++;
          const res = await send(server, txKey, key, to);
          return res.status === 409 && res.body.error?.code === "idempotency_in_flight" ? undefined : res;
        },
        30_000,
        2000,
      ); // a client backing off (each try counts against the key's send limit)
      const waitedMs = Date.now() - retriedAt;
      expect(answer?.status, `${stage}: ${JSON.stringify(answer?.body)}`).toBe(200);
      expect(waitedMs).toBeLessThan(30_000);
      const { send_id: sendId, message_id: messageId } = answer!.body;
      expect(sendId).toMatch(/^snd_/);

      const delivered = await until(() => peer.messages.some((m) => m.sendId === sendId), 40_000);
      expect(delivered, `${stage}: never delivered`).toBe(true);
      // The same key again is a replay, never a second message.
      const again = await send(server, txKey, key, to);
      expect(again.status).toBe(200);
      expect(again.body.send_id).toBe(sendId);
      outcome.push(`${stage}: retry answered after ${waitedMs} ms (${attempts} tries)`);
      const record = await until(async () => {
        const r = await call(server.base, "GET", `/api/transactional/sends/${sendId}`, {
          headers: { cookie },
        });
        return r.body?.status === "sent" ? r : undefined;
      }, 10_000);
      expect(record?.body.status, `${stage}: record`).toBe("sent");
      if (messageId) expect(peer.messages.find((m) => m.sendId === sendId)!.messageId).toBe(messageId);
    }
    // Let any duplicate attempt land before counting.
    await new Promise((r) => setTimeout(r, 2000));
    const perSend = new Map<string, number>();
    for (const m of peer.messages) perSend.set(m.sendId, (perSend.get(m.sendId) ?? 0) + 1);
    console.log(`crash-email: ${outcome.join("; ")}; ${peer.messages.length} messages delivered`);
    expect([...perSend.values()]).toEqual([1, 1, 1]);
    expect(new Set(peer.messages.map((m) => m.messageId)).size).toBe(3);
  }, 240_000);
});
