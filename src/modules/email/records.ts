import { withTransaction, type DbHandle, type DbOrTrx, type Trx } from "../../platform/db/index.js";
import { notFound } from "../../platform/errors.js";
import { sendLogInserter } from "./store.js";
import type { SendStatus, TxSendTable, TxSuppressionTable } from "./tables.js";
import type { Tags } from "./validate.js";
import "./tables.js";

/** The send log: one record per send, and its delivery timeline. */
export type TimelineType =
  | "queued"
  | "sent"
  | "delivered"
  | "opened"
  | "clicked"
  | "bounced"
  | "complained"
  | "failed"
  | "deferred"
  | "suppressed";

export interface SendSummary {
  id: string;
  status: SendStatus;
  to: string;
  subject: string;
  commId: string | null;
  tags: Tags;
  sandbox: boolean;
  messageId: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

const toSummary = (r: TxSendTable): SendSummary => ({
  id: r.id,
  status: r.status,
  to: r.to_addr,
  subject: r.subject,
  commId: r.comm_id,
  tags: JSON.parse(r.tags),
  sandbox: r.sandbox === 1,
  messageId: r.message_id,
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface TimelineEvent {
  type: TimelineType;
  detail?: unknown;
}

interface Pending {
  row: TxSendTable;
  events: TimelineEvent[];
  /** Other writes that must commit with the record (its delivery job, its idempotency link). */
  also?: (trx: Trx) => Promise<void>;
  done: (err?: unknown) => void;
}

/**
 * Group commit for new send records: the records of concurrent requests are written together in
 * one transaction (two multi-row INSERTs), and each request resumes once that transaction commits.
 * Per-send statements would otherwise dominate a sandbox send. One writer per app, in `SendDeps`.
 */
export class SendLogWriter {
  private queue: Pending[] = [];
  private flushing = false;
  private insert: ReturnType<typeof sendLogInserter>;

  constructor(private handle: DbHandle) {
    this.insert = sendLogInserter(handle);
  }

  write(row: TxSendTable, events: TimelineEvent[], also?: Pending["also"]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, events, also, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    // 16 columns × 500 rows stays far below PostgreSQL's 65 535 bind parameters.
    const batch = this.queue.splice(0, 500);
    const at = Date.now();
    const events = batch.flatMap((p) =>
      p.events.map((e) => ({
        send_id: p.row.id,
        type: e.type,
        at,
        detail: e.detail === undefined ? null : JSON.stringify(e.detail),
      })),
    );
    try {
      await withTransaction(this.handle.db, async (trx) => {
        await this.insert(
          trx,
          batch.map((p) => p.row),
          events,
        );
        for (const p of batch) if (p.also) await p.also(trx);
      });
      for (const p of batch) p.done();
    } catch (err) {
      for (const p of batch) p.done(err);
    }
    if (this.queue.length) setImmediate(() => void this.flush());
    else this.flushing = false;
  }
}

/** Writes a new send record with its first timeline events; resolves once committed. */
export function insertSend(
  writer: SendLogWriter,
  row: TxSendTable,
  events: TimelineEvent[],
  also?: (trx: Trx) => Promise<void>,
): Promise<void> {
  return writer.write(row, events, also);
}

export async function addEvent(
  db: DbOrTrx,
  sendId: string,
  type: TimelineType,
  detail?: unknown,
): Promise<void> {
  await db
    .insertInto("tx_send_events")
    .values({
      send_id: sendId,
      type,
      at: Date.now(),
      detail: detail === undefined ? null : JSON.stringify(detail),
    })
    .execute();
}

export async function updateSend(db: DbOrTrx, id: string, set: Partial<TxSendTable>): Promise<void> {
  await db
    .updateTable("tx_sends")
    .set({ ...set, updated_at: new Date().toISOString() })
    .where("id", "=", id)
    .execute();
}

export async function getSendRow(db: DbOrTrx, id: string): Promise<TxSendTable | undefined> {
  return db.selectFrom("tx_sends").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function listRecent(db: DbOrTrx, workspaceId: string, limit: number): Promise<SendSummary[]> {
  const rows = await db
    .selectFrom("tx_sends")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map(toSummary);
}

export async function getSendWithTimeline(db: DbOrTrx, workspaceId: string, id: string) {
  const row = await db
    .selectFrom("tx_sends")
    .selectAll()
    .where("id", "=", id)
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (!row) throw notFound("send", id);
  const events = await db
    .selectFrom("tx_send_events")
    .selectAll()
    .where("send_id", "=", id)
    .orderBy("id")
    .execute();
  // "queued" is the record's creation, not a stored event: one row less per send.
  const queued = {
    type: "queued",
    at: row.created_at,
    ...(row.sandbox ? { detail: { sandbox: true } } : {}),
  };
  return {
    ...toSummary(row),
    attempts: row.attempts,
    timeline: [
      queued,
      ...events.map((e) => ({
        type: e.type,
        at: new Date(Number(e.at)).toISOString(),
        ...(e.detail ? { detail: JSON.parse(e.detail) } : {}),
      })),
    ],
  };
}

// ---- suppression list (per workspace, addresses lower-cased) ----

export const normAddr = (e: string) => e.trim().toLowerCase();

export async function isSuppressed(db: DbOrTrx, workspaceId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom("tx_suppressions")
    .select("email")
    .where("workspace_id", "=", workspaceId)
    .where("email", "=", normAddr(email))
    .executeTakeFirst();
  return !!row;
}

export async function suppress(
  db: DbOrTrx,
  workspaceId: string,
  email: string,
  reason: TxSuppressionTable["reason"],
  detail: string | null,
): Promise<void> {
  await db
    .insertInto("tx_suppressions")
    .values({
      workspace_id: workspaceId,
      email: normAddr(email),
      reason,
      detail,
      created_at: new Date().toISOString(),
    })
    .onConflict((oc) => oc.columns(["workspace_id", "email"]).doNothing())
    .execute();
}

export async function listSuppressions(db: DbOrTrx, workspaceId: string) {
  const rows = await db
    .selectFrom("tx_suppressions")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .execute();
  return rows.map((r) => ({ email: r.email, reason: r.reason, detail: r.detail, createdAt: r.created_at }));
}

export async function liftSuppression(db: DbOrTrx, workspaceId: string, email: string) {
  const res = await db
    .deleteFrom("tx_suppressions")
    .where("workspace_id", "=", workspaceId)
    .where("email", "=", normAddr(email))
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound("suppression", email);
  return { id: normAddr(email), deleted: true };
}

/** Suppresses an address by hand (reason `manual`); an address already suppressed keeps its reason. */
export async function addManualSuppression(
  db: DbOrTrx,
  workspaceId: string,
  email: string,
  detail: string | null,
) {
  await suppress(db, workspaceId, email, "manual", detail);
  const r = await db
    .selectFrom("tx_suppressions")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("email", "=", normAddr(email))
    .executeTakeFirstOrThrow();
  return { email: r.email, reason: r.reason, detail: r.detail, createdAt: r.created_at };
}

/** A delivery's outcome on the record and its timeline, in one transaction. */
export async function recordOutcome(
  db: DbOrTrx,
  sendId: string,
  status: SendStatus,
  extra: Partial<TxSendTable>,
  events: TimelineEvent[],
): Promise<void> {
  await withTransaction(db, async (trx) => {
    await updateSend(trx, sendId, { status, ...extra });
    for (const e of events) await addEvent(trx, sendId, e.type, e.detail);
  });
}

/** 5xx: failed; a hard bounce also puts the address on the workspace suppression list. */
export async function recordPermanentFailure(
  db: DbOrTrx,
  rec: Pick<TxSendTable, "id" | "workspace_id" | "to_addr">,
  reply: string,
  hardBounce: boolean,
  attempts: number,
): Promise<void> {
  await withTransaction(db, async (trx) => {
    await updateSend(trx, rec.id, {
      status: hardBounce ? "bounced" : "failed",
      error: reply,
      attempts,
      pending_message: null,
    });
    await addEvent(trx, rec.id, hardBounce ? "bounced" : "failed", { reply });
    if (hardBounce) await suppress(trx, rec.workspace_id, rec.to_addr, "hard_bounce", reply);
  });
}
