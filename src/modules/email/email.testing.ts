import type { AddressInfo } from "node:net";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";
import type { TestApp } from "../../../test/helpers/app.js";

/** A real SMTP peer for tests: records what arrives; `onRcpt`/`onData` can answer with an SMTP error. */
export interface SmtpPeer {
  url: string;
  messages: Array<{ raw: Buffer; to: string[] }>;
  onRcpt: ((to: string) => { code: number; message: string } | null) | null;
  onData: (() => { code: number; message: string } | null) | null;
  /** Holds each DATA reply this long (to keep a request in flight). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startSmtpPeer(): Promise<SmtpPeer> {
  const peer: SmtpPeer = {
    url: "",
    messages: [],
    onRcpt: null,
    onData: null,
    delayMs: 0,
    close: async () => {},
  };
  const fail = (r: { code: number; message: string }) =>
    Object.assign(new Error(r.message), { responseCode: r.code });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, cb) {
      const r = peer.onRcpt?.(address.address);
      cb(r ? fail(r) : undefined);
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const finish = () => {
          const r = peer.onData?.();
          if (r) return cb(fail(r));
          peer.messages.push({
            raw: Buffer.concat(chunks),
            to: session.envelope.rcptTo.map((a) => a.address),
          });
          cb(null);
        };
        if (peer.delayMs > 0) setTimeout(finish, peer.delayMs);
        else finish();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  peer.url = `smtp://127.0.0.1:${port}`;
  peer.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return peer;
}

export const parseMail = (raw: Buffer) => PostalMime.parse(raw);

/** A tenant with a transactional key; `send` posts to the send endpoint with it. */
export async function txTenant(
  t: TestApp,
  opts: { tier?: "free" | "starter" | "pro" | "growth" | "scale" } = {},
) {
  const a = await t.tenant({ tier: opts.tier ?? "scale" });
  const minted = await a.post("/api/transactional-api-keys", { name: "test" }, { as: "admin" });
  if (minted.status !== 201) throw new Error(`mint failed: ${minted.status} ${minted.text}`);
  const txKey: string = minted.body.rawKey;
  const send = (body: unknown, headers: Record<string, string> = {}) =>
    a.post("/api/v1/transactional/send", body, {
      as: "none",
      headers: { authorization: `Bearer ${txKey}`, ...headers },
    });
  return { ...a, txKey, keyId: minted.body.id as string, send };
}

/** Polls until `fn` returns a truthy value (a condition, not a sleep). */
export async function waitFor<T>(fn: () => T | Promise<T>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
