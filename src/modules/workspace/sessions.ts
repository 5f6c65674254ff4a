import { randomBytes } from "node:crypto";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, type SessionClaims } from "../../platform/auth/session.js";
import { boundedCache } from "../../platform/cache.js";
import { hashPassword, verifyPassword } from "../../platform/crypto.js";
import { type Db, type DbOrTrx, withTransaction } from "../../platform/db/index.js";
import { AppError, notFound } from "../../platform/errors.js";
import type { UserTable } from "./tables.js";
import "./tables.js";

/**
 * Server-side sign-in sessions. The cookie's token names a row here, and every request checks the
 * row (no cache), so ending a session takes effect at once on every process sharing the database.
 */

/** A new session of the user; its token expires with `expiresAt` (the absolute lifetime). */
export async function startSession(db: DbOrTrx, userId: string, now = Date.now()) {
  const row = {
    id: `ses_${randomBytes(18).toString("base64url")}`,
    user_id: userId,
    created_at: now,
    last_seen_at: now,
    expires_at: now + SESSION_ABSOLUTE_MS,
    ended_at: null,
  };
  await db.insertInto("user_sessions").values(row).execute();
  return { id: row.id, expiresAt: row.expires_at };
}

/** Ends one session (logout). */
export async function endSession(db: DbOrTrx, sessionId: string, now = Date.now()): Promise<void> {
  await db
    .updateTable("user_sessions")
    .set({ ended_at: now })
    .where("id", "=", sessionId)
    .where("ended_at", "is", null)
    .execute();
}

/** Ends every live session of a user but `except` (a password change keeps the one that made it); returns how many. */
export async function endSessionsOfUser(
  db: DbOrTrx,
  userId: string,
  opts: { except?: string; now?: number } = {},
): Promise<number> {
  let q = db
    .updateTable("user_sessions")
    .set({ ended_at: opts.now ?? Date.now() })
    .where("user_id", "=", userId)
    .where("ended_at", "is", null);
  if (opts.except) q = q.where("id", "!=", opts.except);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}

// last_seen_at is written at most once a minute per session, so reads do not each become a write.
const TOUCH_EVERY_MS = 60_000;

/** Checks sessions for the auth plugin; one per app (its touch memory is per process). */
export function sessionChecker(db: Db) {
  const touched = boundedCache<string, true>(10_000, TOUCH_EVERY_MS);
  /** The session's user while the session stands: not ended, within its idle and absolute lifetimes. */
  return async function liveSessionUser(claims: SessionClaims, now = Date.now()): Promise<UserTable | null> {
    const row = await db
      .selectFrom("user_sessions")
      .innerJoin("users", "users.id", "user_sessions.user_id")
      .selectAll("users")
      .select(["user_sessions.last_seen_at", "user_sessions.expires_at", "user_sessions.ended_at"])
      .where("user_sessions.id", "=", claims.sessionId)
      .where("user_sessions.user_id", "=", claims.userId)
      .executeTakeFirst();
    if (!row || row.ended_at !== null) return null;
    if (Number(row.expires_at) <= now || Number(row.last_seen_at) + SESSION_IDLE_MS <= now) return null;
    if (!touched.has(claims.sessionId)) {
      touched.set(claims.sessionId, true);
      await db
        .updateTable("user_sessions")
        .set({ last_seen_at: now })
        .where("id", "=", claims.sessionId)
        .execute();
    }
    const { last_seen_at: _seen, expires_at: _expires, ended_at: _ended, ...user } = row;
    return user;
  };
}

/**
 * Changes a user's password after checking the current one (401 when wrong), and ends every other
 * session of the user: whoever held a stolen session is out. Returns how many ended.
 */
export async function changePassword(
  db: DbOrTrx,
  user: { userId: string; sessionId: string },
  currentPassword: string,
  newPassword: string,
): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select("password_hash")
    .where("id", "=", user.userId)
    .executeTakeFirst();
  if (!row || !(await verifyPassword(currentPassword, row.password_hash)))
    throw new AppError("UNAUTHORIZED", "the current password is not right");
  const hash = await hashPassword(newPassword);
  return withTransaction(db, async (trx) => {
    await trx.updateTable("users").set({ password_hash: hash }).where("id", "=", user.userId).execute();
    return endSessionsOfUser(trx, user.userId, { except: user.sessionId });
  });
}

/** An admin ends every session of a user of the workspace (404 for anyone else's user). */
export async function endSessionsOfMember(db: DbOrTrx, workspaceId: string, userId: string) {
  const member = await db
    .selectFrom("users")
    .select("id")
    .where("id", "=", userId)
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (!member) throw notFound("user", userId);
  return { userId, endedSessions: await endSessionsOfUser(db, userId) };
}
