import { sha256Hex } from "../../platform/crypto.js";
import type { Db, DbOrTrx } from "../../platform/db/index.js";
import { TxError } from "./schema.js";
import "./tables.js";

/**
 * Idempotency per (workspace, Idempotency-Key), with the lock in the database so it holds across
 * processes: the primary key makes exactly one concurrent INSERT win.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * The holder renews its lock every third of this while its request runs, so a retry after the
 * holder's process died waits at most this long (not as long as the longest request could take).
 */
export const LOCK_LEASE_MS = 15_000;
export const MAX_KEY_LENGTH = 255;

export interface StoredResponse {
  status: number;
  body: string;
}
export type Acquired = { kind: "acquired" } | ({ kind: "replay" } & StoredResponse);

/** JSON with object keys sorted at every level, so key order does not change the hash. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v as object).sort();
    return `{${keys
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

export const requestHash = (body: unknown, sandbox: boolean) => sha256Hex(canonicalJson({ body, sandbox }));

export function checkKey(key: string | string[] | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (Array.isArray(key)) throw new TxError("validation_error", "send one Idempotency-Key header");
  if (key.length === 0) throw new TxError("validation_error", "Idempotency-Key must not be empty");
  if (key.length > MAX_KEY_LENGTH) {
    throw new TxError("validation_error", `Idempotency-Key is longer than ${MAX_KEY_LENGTH} characters`);
  }
  return key;
}

/**
 * Takes the key, or answers what the state table says: replay of the finalized response,
 * 409 idempotency_key_mismatch for another payload, 409 idempotency_in_flight while the first runs.
 * `recover` turns a crashed holder's send record into its final response.
 */
export async function acquire(
  db: Db,
  workspaceId: string,
  key: string,
  hash: string,
  recover: (sendId: string) => Promise<StoredResponse | null>,
): Promise<Acquired> {
  for (let round = 0; round < 3; round++) {
    const now = Date.now();
    const ins = await db
      .insertInto("tx_idempotency")
      .values({
        workspace_id: workspaceId,
        idem_key: key,
        request_hash: hash,
        state: "in_flight",
        locked_until: now + LOCK_LEASE_MS,
        send_id: null,
        response_status: null,
        response_body: null,
        expires_at: now + IDEMPOTENCY_TTL_MS,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(["workspace_id", "idem_key"]).doNothing())
      .executeTakeFirst();
    if (Number(ins.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: "acquired" };

    const row = await db
      .selectFrom("tx_idempotency")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .where("idem_key", "=", key)
      .executeTakeFirst();
    if (!row) continue; // released between our insert and select: try again
    if (row.expires_at <= now) {
      await db
        .deleteFrom("tx_idempotency")
        .where("workspace_id", "=", workspaceId)
        .where("idem_key", "=", key)
        .where("expires_at", "<=", now)
        .execute();
      continue;
    }
    if (row.request_hash !== hash) {
      throw new TxError("idempotency_key_mismatch", "this Idempotency-Key was used with a different payload");
    }
    if (row.state === "final")
      return { kind: "replay", status: row.response_status!, body: row.response_body! };
    if (row.locked_until > now) {
      throw new TxError("idempotency_in_flight", "a request with this Idempotency-Key is still in progress");
    }
    // The holder died. With no send record nothing was attempted: take the lock over. With one,
    // its record is the truth (the message may have been handed to SMTP): answer from it.
    if (row.send_id) {
      const resp = await recover(row.send_id);
      if (resp) {
        await finalize(db, workspaceId, key, resp);
        return { kind: "replay", ...resp };
      }
    }
    const took = await db
      .updateTable("tx_idempotency")
      .set({ locked_until: now + LOCK_LEASE_MS, send_id: null })
      .where("workspace_id", "=", workspaceId)
      .where("idem_key", "=", key)
      .where("state", "=", "in_flight")
      .where("locked_until", "=", row.locked_until)
      .executeTakeFirst();
    if (Number(took.numUpdatedRows) === 1) return { kind: "acquired" };
  }
  throw new TxError("idempotency_in_flight", "a request with this Idempotency-Key is still in progress");
}

/** Renews the holder's lock until the returned function is called. */
export function keepLock(db: Db, workspaceId: string, key: string): () => void {
  const timer = setInterval(() => {
    db.updateTable("tx_idempotency")
      .set({ locked_until: Date.now() + LOCK_LEASE_MS })
      .where("workspace_id", "=", workspaceId)
      .where("idem_key", "=", key)
      .where("state", "=", "in_flight")
      .execute()
      .catch(() => {}); // a missed renewal only shortens the lease; the next one may succeed
  }, LOCK_LEASE_MS / 3);
  timer.unref();
  return () => clearInterval(timer);
}

export async function attachSend(
  db: DbOrTrx,
  workspaceId: string,
  key: string,
  sendId: string,
): Promise<void> {
  await db
    .updateTable("tx_idempotency")
    .set({ send_id: sendId })
    .where("workspace_id", "=", workspaceId)
    .where("idem_key", "=", key)
    .execute();
}

/** Stores the response exactly as sent, for 24 hours from the first request. */
export async function finalize(
  db: Db,
  workspaceId: string,
  key: string,
  resp: StoredResponse,
): Promise<void> {
  await db
    .updateTable("tx_idempotency")
    .set({ state: "final", response_status: resp.status, response_body: resp.body })
    .where("workspace_id", "=", workspaceId)
    .where("idem_key", "=", key)
    .execute();
}

/** Frees the key when the request did not start a send (validation, template errors, 5xx). */
export async function release(db: Db, workspaceId: string, key: string): Promise<void> {
  await db
    .deleteFrom("tx_idempotency")
    .where("workspace_id", "=", workspaceId)
    .where("idem_key", "=", key)
    .where("state", "=", "in_flight")
    .execute();
}

/** Deletes expired keys (their 24 hours are over); run hourly by the worker. */
export async function deleteExpiredKeys(db: DbOrTrx, now = Date.now()): Promise<number> {
  const res = await db.deleteFrom("tx_idempotency").where("expires_at", "<=", now).executeTakeFirst();
  return Number(res.numDeletedRows);
}
