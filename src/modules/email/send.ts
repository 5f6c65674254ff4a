import { withTransaction, type Db, type DbHandle, type DbOrTrx } from "../../platform/db/index.js";
import { compile as compileHtmlToText } from "html-to-text";
import { randomUUID } from "node:crypto";
import type { SecretBox } from "../../platform/crypto.js";
import { HeldJob } from "../../platform/jobs/index.js";
import { TxError } from "./schema.js";
import { resolveForSend } from "./catalog.js";
import { deliverNow, type Mailer, type OutgoingMessage } from "../../platform/mail/smtp.js";
import * as idem from "./idempotency.js";
import type { TxPrincipal } from "./keys.js";
import {
  addEvent,
  insertSend,
  isSuppressed,
  recordOutcome,
  recordPermanentFailure,
  type SendLogWriter,
  type TimelineEvent,
  updateSend,
} from "./records.js";
import type { SendStatus, TxSendTable } from "./tables.js";
import { renderTemplate } from "../../platform/mail/template/compile.js";
import type { Tracker } from "../../platform/mail/tracking.js";
import type { InlineSendBody, TemplateSendBody } from "./schema.js";
import { SANDBOX_TAG, type SendRequest, toSendRequest } from "./validate.js";
import { DELIVER_JOB } from "./schema.js";

export interface SendDeps {
  db: Db;
  handle: DbHandle;
  /** The app's group-committing writer of new send records. */
  sendLog: SendLogWriter;
  secrets: SecretBox;
  mailer: () => Mailer;
  tracker: Tracker;
  sandboxDomain: string;
  from: string;
  /** Domain of generated Message-IDs. */
  messageDomain: string;
  /** Delays of the in-request attempts (tests shorten them). */
  inRequestDelays?: number[];
  /** false: links and opens are not tracked (Lift's own mail, whose links carry one-time tokens). */
  tracking?: boolean;
}

export interface SendInput {
  /** checked by the route against the schema (`validateSendBody`) */
  body: InlineSendBody | TemplateSendBody;
  idempotencyKey: string | string[] | undefined;
  mode: string | string[] | undefined;
}

/** What the endpoint answers: the exact bytes, so an idempotent replay is byte-identical. */
export interface SendResponse {
  status: number;
  body: string;
  replayed: boolean;
}

const okBody = (sendId: string, messageId: string | null, status: SendStatus, sandbox: boolean) =>
  JSON.stringify({ send_id: sendId, message_id: messageId, status, sandbox });
const errBody = (code: string, message: string) => JSON.stringify({ error: { code, message } });

export async function handleSend(deps: SendDeps, who: TxPrincipal, input: SendInput): Promise<SendResponse> {
  const key = idem.checkKey(input.idempotencyKey);
  const mode = typeof input.mode === "string" ? input.mode.trim().toLowerCase() : input.mode;
  if (mode !== undefined && mode !== "sandbox" && mode !== "live") {
    throw new TxError("validation_error", "X-Svc-Mode must be sandbox (or live)");
  }
  const req = toSendRequest(input.body);
  const sandbox = mode === "sandbox" || domainOf(req.to) === deps.sandboxDomain.toLowerCase();
  if (!key)
    return { ...(await perform(deps, who, req, sandbox, null, { recorded: false })), replayed: false };

  const got = await idem.acquire(deps.db, who.workspaceId, key, idem.requestHash(input.body, sandbox), (id) =>
    responseFromRecord(deps.db, id),
  );
  if (got.kind === "replay") return { status: got.status, body: got.body, replayed: true };
  let res: { status: number; body: string };
  const progress = { recorded: false };
  const stopRenewing = idem.keepLock(deps.db, who.workspaceId, key);
  try {
    res = await perform(deps, who, req, sandbox, key, progress);
  } catch (err) {
    stopRenewing();
    // Refused before a live send was recorded (validation, template errors): the key is free again.
    // Once the record exists the message may have reached SMTP, so the lock stays: after its lease
    // the response is rebuilt from the record, never by sending again.
    if (!progress.recorded) await idem.release(deps.db, who.workspaceId, key);
    throw err;
  }
  stopRenewing();
  await idem.finalize(deps.db, who.workspaceId, key, res);
  return { ...res, replayed: false };
}

// Compiled once: html-to-text's convert() rebuilds its selector machinery on every call.
const htmlToText = compileHtmlToText({ wordwrap: 100 });

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();
const localOf = (email: string) => email.slice(0, email.lastIndexOf("@")).toLowerCase();

interface Content {
  subject: string;
  html?: string;
  /** Undefined for an html-only inline send: derived only when a message is really built. */
  text?: string;
  commId: string | null;
}

/** Rules 1–8 of the template shape, or the inline fields with text derived from html. */
async function renderContent(handle: DbHandle, workspaceId: string, req: SendRequest): Promise<Content> {
  if (req.kind === "inline") {
    return { subject: req.subject, html: req.html, text: req.text, commId: null };
  }
  const t = await resolveForSend(handle, workspaceId, req.commId);
  if (!t) throw new TxError("comm_not_found", `no communication ${req.commId} in this workspace`);
  if (t.commType !== "transactional") {
    throw new TxError(
      "comm_type_mismatch",
      `communication ${req.commId} has commType ${t.commType}; only transactional can be sent here`,
    );
  }
  const missing = new Set<string>();
  const r = renderTemplate(t.compiled, req.variables, missing);
  if (req.strict && missing.size) {
    const keys = [...missing].sort();
    throw new TxError("missing_variables", `variables not provided: ${keys.join(", ")}`, keys);
  }
  return { ...r, commId: req.commId };
}

/**
 * Send ids lead with the time (base36 ms, fixed width) so new records append to the end of the
 * primary-key B-tree instead of landing at random pages; 74 random bits (a UUIDv4 prefix) keep them unguessable.
 */
// randomUUID draws from Node's cached entropy pool: far cheaper per call than randomBytes.
const hexRandom = () => randomUUID().replace(/-/g, "");

function sendId(): string {
  return `snd_${Date.now().toString(36).padStart(9, "0")}${hexRandom().slice(0, 20)}`;
}

function newRecord(
  who: TxPrincipal,
  req: SendRequest,
  c: Content,
  sandbox: boolean,
  key: string | null,
): TxSendTable {
  const now = new Date().toISOString();
  return {
    id: sendId(),
    workspace_id: who.workspaceId,
    key_id: who.keyId,
    to_addr: req.to,
    subject: c.subject,
    comm_id: c.commId,
    // "Sandbox sends are written and tagged sandbox": the tag sits in the stored blob itself.
    tags: JSON.stringify(sandbox ? { ...req.tags, [SANDBOX_TAG]: true } : req.tags),
    sandbox: sandbox ? 1 : 0,
    status: "queued",
    message_id: null,
    error: null,
    idempotency_key: key,
    pending_message: null,
    attempts: 0,
    created_at: now,
    updated_at: now,
  };
}

async function perform(
  deps: SendDeps,
  who: TxPrincipal,
  req: SendRequest,
  sandbox: boolean,
  key: string | null,
  progress: { recorded: boolean },
): Promise<{ status: number; body: string }> {
  const content = await renderContent(deps.handle, who.workspaceId, req);
  const rec = newRecord(who, req, content, sandbox, key);
  if (sandbox) return simulate(deps.sendLog, rec, req.to);

  if (await isSuppressed(deps.db, who.workspaceId, req.to)) {
    rec.status = "suppressed";
    rec.error = "recipient is on the suppression list";
    await insertSend(deps.sendLog, rec, [{ type: "suppressed" }]);
    return { status: 422, body: errBody("suppressed", `${req.to} is on the workspace suppression list`) };
  }

  rec.message_id = `${rec.id}.${hexRandom().slice(0, 8)}@${deps.messageDomain}`;
  const msg: OutgoingMessage = {
    from: deps.from,
    to: req.to,
    subject: content.subject,
    html:
      content.html === undefined || deps.tracking === false
        ? content.html
        : deps.tracker.instrument(content.html, rec.id),
    text: content.text ?? htmlToText(content.html!),
    messageId: rec.message_id,
    headers: { "X-Lift-Send-Id": rec.id },
  };
  // Durable before the first SMTP byte: the record carries the sealed message and a delivery job
  // claimed by this request commits with it. If this process dies mid-conversation, the job's
  // lease lapses and a worker delivers the same message (same Message-ID) — at least once.
  rec.pending_message = deps.secrets.encrypt(JSON.stringify(msg));
  const job = new HeldJob(DELIVER_JOB, { sendId: rec.id });
  await insertSend(deps.sendLog, rec, [], async (trx) => {
    await job.create(trx, `email.deliver:${rec.id}`);
    if (key) await idem.attachSend(trx, who.workspaceId, key, rec.id);
  });
  progress.recorded = true;

  const stopRenewing = job.keepAlive(deps.db);
  let result: Awaited<ReturnType<typeof deliverNow>>;
  try {
    result = await deliverNow(deps.mailer(), msg, deps.inRequestDelays);
  } finally {
    stopRenewing();
  }
  const { outcome, attempts } = result;
  if (outcome.ok) {
    await recordOutcome(deps.db, rec.id, "sent", { attempts, pending_message: null }, [
      { type: "sent", detail: { reply: outcome.reply } },
    ]);
    await job.settle(deps.db, { status: "done" });
    return { status: 200, body: okBody(rec.id, rec.message_id, "sent", false) };
  }
  if (!outcome.transient) {
    await recordPermanentFailure(deps.db, rec, outcome.reply, outcome.hardBounce, attempts);
    await job.settle(deps.db, { status: "done" });
    return {
      status: 422,
      body: errBody("send_failed", `the mail server refused the message: ${outcome.reply}`),
    };
  }
  // Still failing after the in-request attempts: the job keeps trying; the sealed message is kept
  // only until then (rule 8: no code or token outlives the delivery).
  await withTransaction(deps.db, async (trx) => {
    await updateSend(trx, rec.id, { attempts });
    await addEvent(trx, rec.id, "deferred", { reply: outcome.reply });
    await job.settle(trx, { status: "queued", runAt: Date.now() });
  });
  return { status: 200, body: okBody(rec.id, rec.message_id, "queued", false) };
}

/**
 * Sandbox: outcomes decided by the recipient's local part only (deterministic, independent of the
 * workspace's real suppression list), a record tagged sandbox, nothing delivered.
 */
async function simulate(
  sendLog: SendLogWriter,
  rec: TxSendTable,
  to: string,
): Promise<{ status: number; body: string }> {
  const local = localOf(to);
  const events: TimelineEvent[] = [];
  let res: { status: number; body: string };
  if (local.includes("bounce")) {
    rec.status = "bounced";
    rec.error = "simulated bounce (sandbox)";
    events.push({ type: "bounced", detail: { sandbox: true } });
    res = { status: 422, body: errBody("bounce", `simulated bounce for ${to} (sandbox)`) };
  } else if (local.includes("suppress")) {
    rec.status = "suppressed";
    rec.error = "simulated suppression (sandbox)";
    events.push({ type: "suppressed", detail: { sandbox: true } });
    res = { status: 422, body: errBody("suppressed", `${to} is suppressed (sandbox)`) };
  } else {
    rec.status = "sent";
    rec.message_id = `sbx_${hexRandom()}`;
    events.push({ type: "sent", detail: { sandbox: true } });
    res = { status: 200, body: okBody(rec.id, rec.message_id, "sent", true) };
  }
  await insertSend(sendLog, rec, events);
  return res;
}

/** The final response of a send whose request holder crashed, rebuilt from its record. */
async function responseFromRecord(
  db: DbOrTrx,
  sendId: string,
): Promise<{ status: number; body: string } | null> {
  const r = await db.selectFrom("tx_sends").selectAll().where("id", "=", sendId).executeTakeFirst();
  if (!r) return null;
  if (r.status === "sent" || r.status === "queued" || r.status === "delivered") {
    return { status: 200, body: okBody(r.id, r.message_id, r.status, r.sandbox === 1) };
  }
  if (r.status === "suppressed")
    return { status: 422, body: errBody("suppressed", `${r.to_addr} is on the workspace suppression list`) };
  return {
    status: 422,
    body: errBody("send_failed", `the mail server refused the message: ${r.error ?? ""}`),
  };
}
