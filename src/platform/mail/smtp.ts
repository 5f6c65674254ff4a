import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";

/**
 * Handing a message to a mail server: SMTP through nodemailer (or the outbox file when no server is
 * configured), what a failure means (retry, give up, hard bounce), and the attempts within a request.
 */

export interface OutgoingMessage {
  from: string;
  to: string;
  subject: string;
  html?: string;
  text: string;
  /** RFC 5322 Message-ID without angle brackets. */
  messageId: string;
  headers: Record<string, string>;
}

export interface Mailer {
  /** Resolves with the server's reply; rejects with nodemailer's error (responseCode, response, code). */
  send(m: OutgoingMessage): Promise<string>;
  close(): void;
}

const toNodemailer = (m: OutgoingMessage) => ({
  from: m.from,
  to: m.to,
  subject: m.subject,
  html: m.html,
  text: m.text,
  messageId: `<${m.messageId}>`,
  headers: m.headers,
});

/** SMTP with pooled connections (SMTP_URL); timeouts bounded so a request never hangs on a peer. */
export function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: 5,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(m) {
      const info = await transport.sendMail(toNodemailer(m));
      return String(info.response ?? "250 OK");
    },
    close: () => transport.close(),
  };
}

/** Without SMTP_URL a fresh install still "delivers": each message becomes `<dataDir>/outbox/<id>.eml`. */
export function outboxMailer(dataDir: string): Mailer {
  const dir = path.join(dataDir, "outbox");
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    async send(m) {
      const info = await transport.sendMail(toNodemailer(m));
      // Mail holds sign-in codes and reset links: only the server's user may read it.
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, `${m.messageId.replace(/[^\w.-]/g, "_")}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      return `250 written to ${file}`;
    },
    close: () => {},
  };
}

export type Outcome =
  | { ok: true; reply: string }
  | { ok: false; transient: boolean; hardBounce: boolean; reply: string };

const CONNECTION_CODES = new Set([
  "ECONNECTION",
  "ETIMEDOUT",
  "ESOCKET",
  "EDNS",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETLS",
]);

/**
 * SMTP semantics: 4xx replies and connection failures are transient (retry); 5xx is permanent.
 * A 5xx on RCPT TO, or an enhanced status 5.1.x (bad mailbox), is a hard bounce.
 */
export function classify(err: unknown): Outcome & { ok: false } {
  const e = err as {
    responseCode?: number;
    response?: string;
    code?: string;
    command?: string;
    message?: string;
  };
  const reply = (e.response ?? e.message ?? String(err)).trim();
  const code = e.responseCode;
  if (typeof code === "number" && code >= 500) {
    const hardBounce = /RCPT/i.test(e.command ?? "") || /\b5\.1\.\d+\b/.test(reply);
    return { ok: false, transient: false, hardBounce, reply };
  }
  if (typeof code === "number" && code >= 400)
    return { ok: false, transient: true, hardBounce: false, reply };
  return {
    ok: false,
    transient: CONNECTION_CODES.has(e.code ?? "") || e.code === undefined,
    hardBounce: false,
    reply,
  };
}

/** In-request attempts: immediate, then two short backoffs; later attempts belong to the job. */
export const IN_REQUEST_DELAYS_MS = [0, 250, 1000];

/** Tries within the request budget; stops at the first success or permanent failure. */
export async function deliverNow(
  mailer: Mailer,
  m: OutgoingMessage,
  delays: number[] = IN_REQUEST_DELAYS_MS,
): Promise<{ outcome: Outcome; attempts: number }> {
  let outcome: Outcome = { ok: false, transient: true, hardBounce: false, reply: "not attempted" };
  let attempts = 0;
  for (const d of delays) {
    if (d > 0) await new Promise((r) => setTimeout(r, d));
    attempts++;
    try {
      outcome = { ok: true, reply: await mailer.send(m) };
      return { outcome, attempts };
    } catch (err) {
      const failed = classify(err);
      outcome = failed;
      if (!failed.transient) return { outcome, attempts };
    }
  }
  return { outcome, attempts };
}
