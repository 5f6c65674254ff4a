import { creationTime } from "../../platform/creation-time.js";
import { KEY_PREFIX } from "../../platform/auth/keys.js";
import { newId, randomBase62, sha256Hex } from "../../platform/crypto.js";
import type { DbHandle, DbOrTrx } from "../../platform/db/index.js";
import { notFound } from "../../platform/errors.js";
import { txKeyFinder } from "./store.js";
import type { TxKeyTable } from "./tables.js";
import "./tables.js";

export const TX_KEY_PREFIX = KEY_PREFIX.transactional;

export interface TxKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The caller of the send endpoint once its key is verified. */
export interface TxPrincipal {
  keyId: string;
  workspaceId: string;
}

const toKey = (k: TxKeyTable): TxKey => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.created_at,
  lastUsedAt: k.last_used_at,
  revokedAt: k.revoked_at,
});

/** Mints a key: 32 random bytes in base62; only its SHA-256 is stored, the raw key is returned once. */
export async function mintTxKey(
  db: DbOrTrx,
  workspaceId: string,
  name: string,
): Promise<TxKey & { rawKey: string }> {
  const rawKey = `${TX_KEY_PREFIX}${randomBase62(32)}`;
  const row: TxKeyTable = {
    id: newId("txk"),
    workspace_id: workspaceId,
    name,
    prefix: rawKey.slice(0, TX_KEY_PREFIX.length + 6),
    key_hash: sha256Hex(rawKey),
    created_at: creationTime(),
    last_used_at: null,
    revoked_at: null,
  };
  await db.insertInto("tx_keys").values(row).execute();
  return { ...toKey(row), rawKey };
}

export async function listTxKeys(db: DbOrTrx, workspaceId: string): Promise<TxKey[]> {
  const rows = await db
    .selectFrom("tx_keys")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toKey);
}

/** Revokes a key; it fails on the very next request because every request reads the key row. */
export async function revokeTxKey(db: DbOrTrx, workspaceId: string, keyId: string) {
  const res = await db
    .updateTable("tx_keys")
    .set({ revoked_at: new Date().toISOString() })
    .where("id", "=", keyId)
    .where("workspace_id", "=", workspaceId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) {
    const exists = await db
      .selectFrom("tx_keys")
      .select("id")
      .where("id", "=", keyId)
      .where("workspace_id", "=", workspaceId)
      .executeTakeFirst();
    if (!exists) throw notFound("transactional API key", keyId);
  }
  return { id: keyId, deleted: true };
}

// last_used_at is advisory; writing it on every send would double the writes of the hot path.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Verifies raw `svc_tx_` keys (null when unknown or revoked). Every call reads the key row, so a
 * revocation applies to the very next request on every node (the lookup: `txKeyFinder`).
 */
export function createTxKeyResolver(handle: DbHandle): (rawKey: string) => Promise<TxPrincipal | null> {
  const { db } = handle;
  const find = txKeyFinder(handle);
  return async (rawKey) => {
    const row = await find(sha256Hex(rawKey));
    if (!row || row.revoked_at) return null;
    const now = Date.now();
    if (!row.last_used_at || now - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS) {
      await db
        .updateTable("tx_keys")
        .set({ last_used_at: new Date(now).toISOString() })
        .where("id", "=", row.id)
        .execute();
    }
    return { keyId: row.id, workspaceId: row.workspace_id };
  };
}
