import { creationTime } from "../../platform/creation-time.js";
import { KEY_PREFIX } from "../../platform/auth/keys.js";
import { hashPassword, newId, randomBase62, sha256Hex } from "../../platform/crypto.js";
import { type DbOrTrx, isUniqueViolation, withTransaction } from "../../platform/db/index.js";
import { type ServiceDeps, stateOf } from "../../platform/deps.js";
import { AppError, notFound } from "../../platform/errors.js";
import type { InviteT } from "./schema.js";
import { LIFT_MAILER } from "./lift-mailer.js";
import { getWorkspace } from "./service.js";
import { startSession } from "./sessions.js";
import type { InviteTable, Role, UserTable } from "./tables.js";
import "./tables.js";

/**
 * Invitations: an admin invites an email; Lift mails the catalog `invite` template with
 * a one-time link; whoever holds the link sets their own password and becomes a user of the
 * workspace with the invited role, signed in. Only the link token's SHA-256 is stored.
 */

/** `svc_inv_` + 43 base62 characters (256 bits); the prefix is platform/auth/keys.ts's, which log redaction reads. */
export const INVITE_PREFIX = KEY_PREFIX.invitation;
export const INVITE_TTL_MS = 7 * 86_400_000;

const normEmail = (e: string) => e.trim().toLowerCase();

function statusOf(r: InviteTable, now = new Date().toISOString()): InviteT["status"] {
  if (r.accepted_at) return "accepted";
  if (r.revoked_at) return "revoked";
  return r.expires_at <= now ? "expired" : "pending";
}

const toInvite = (r: InviteTable): InviteT => ({
  id: r.id,
  email: r.email,
  role: r.role,
  status: statusOf(r),
  invitedBy: { id: r.invited_by_id, email: r.invited_by_email },
  delivery: { sendId: r.send_id, status: r.delivery_status, error: r.delivery_error },
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  acceptedAt: r.accepted_at,
});

async function emailTaken(db: DbOrTrx, email: string): Promise<boolean> {
  return !!(await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst());
}

/**
 * Creates the invitation and mails it. A newer invitation to the same email replaces a pending one
 * (its link stops working). The mail is sent after the invitation is stored: if it cannot be sent,
 * the invitation stands, `delivery` says why, and the link returned once can be handed over.
 */
export async function createInvite(
  deps: ServiceDeps,
  admin: { workspaceId: string; userId: string; email: string },
  input: { email: string; role: Role },
): Promise<InviteT & { acceptUrl: string }> {
  const email = normEmail(input.email);
  if (await emailTaken(deps.db, email))
    throw new AppError("CONFLICT", `a user with email ${email} already exists`);
  const token = `${INVITE_PREFIX}${randomBase62(32)}`;
  const now = Date.now();
  const row: InviteTable = {
    id: newId("inv"),
    workspace_id: admin.workspaceId,
    email,
    role: input.role,
    token_hash: sha256Hex(token),
    invited_by_id: admin.userId,
    invited_by_email: admin.email,
    send_id: null,
    delivery_status: "sending",
    delivery_error: null,
    created_at: creationTime(now),
    expires_at: new Date(now + INVITE_TTL_MS).toISOString(),
    accepted_at: null,
    revoked_at: null,
  };
  await withTransaction(deps.db, async (trx) => {
    await trx
      .updateTable("workspace_invites")
      .set({ revoked_at: row.created_at })
      .where("workspace_id", "=", admin.workspaceId)
      .where("email", "=", email)
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .execute();
    await trx.insertInto("workspace_invites").values(row).execute();
  });
  const acceptUrl = `${deps.config.publicUrl}/invite/${token}`;
  const workspace = await getWorkspace(deps.db, admin.workspaceId);
  const sent = await stateOf(deps, LIFT_MAILER)(deps, admin.workspaceId, {
    to: email,
    commId: "invite",
    variables: { acceptUrl, inviterName: admin.email, orgName: workspace.name, role: input.role },
    tags: { flow: "invite", inviteId: row.id },
  });
  const delivery = { send_id: sent.sendId, delivery_status: sent.status, delivery_error: sent.error };
  await deps.db.updateTable("workspace_invites").set(delivery).where("id", "=", row.id).execute();
  return { ...toInvite({ ...row, ...delivery }), acceptUrl };
}

/** The workspace's invitations, newest first (the last 200). */
export async function listInvites(db: DbOrTrx, workspaceId: string): Promise<InviteT[]> {
  const rows = await db
    .selectFrom("workspace_invites")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(200)
    .execute();
  return rows.map(toInvite);
}

/** Revokes a pending (or expired) invitation; its link answers 404 at once. */
export async function revokeInvite(db: DbOrTrx, workspaceId: string, id: string) {
  const row = await db
    .selectFrom("workspace_invites")
    .selectAll()
    .where("id", "=", id)
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (!row || row.revoked_at) throw notFound("invitation", id);
  if (row.accepted_at) throw new AppError("CONFLICT", `invitation ${id} was already accepted`);
  await db
    .updateTable("workspace_invites")
    .set({ revoked_at: new Date().toISOString() })
    .where("id", "=", id)
    .where("accepted_at", "is", null)
    .execute();
  return { id, deleted: true as const };
}

/** The invitation behind a link while it can be accepted, else 404 saying why (the token reveals nothing else). */
async function usableInvite(db: DbOrTrx, token: string): Promise<InviteTable> {
  const row = token.startsWith(INVITE_PREFIX)
    ? await db
        .selectFrom("workspace_invites")
        .selectAll()
        .where("token_hash", "=", sha256Hex(token))
        .executeTakeFirst()
    : undefined;
  const status = row ? statusOf(row) : null;
  if (!row || status === "revoked") throw new AppError("NOT_FOUND", "no invitation at this link");
  if (status === "accepted")
    throw new AppError("NOT_FOUND", "this invitation was already used: sign in instead");
  if (status === "expired")
    throw new AppError("NOT_FOUND", "this invitation has expired: ask the workspace's admin for a new one");
  return row;
}

/** What the accept page shows: who invited whom to which workspace. */
export async function previewInvite(db: DbOrTrx, token: string) {
  const row = await usableInvite(db, token);
  const workspace = await getWorkspace(db, row.workspace_id);
  return {
    email: row.email,
    role: row.role,
    workspace: { name: workspace.name },
    invitedBy: { email: row.invited_by_email },
    expiresAt: row.expires_at,
  };
}

/**
 * Accepts: in one transaction the invitation is claimed (once: a second accept, concurrent or
 * later, finds it used), the user is created with the invited role and their own password, and a
 * session starts. A user created with the email meanwhile is 409 and the invitation stays open.
 */
export async function acceptInvite(db: DbOrTrx, token: string, password: string) {
  const invite = await usableInvite(db, token);
  // scrypt before the transaction: the write lock is not held while the password hashes.
  const passwordHash = await hashPassword(password);
  return withTransaction(db, async (trx) => {
    const now = new Date().toISOString();
    const claimed = await trx
      .updateTable("workspace_invites")
      .set({ accepted_at: now })
      .where("id", "=", invite.id)
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) {
      await usableInvite(trx, token); // throws the reason: used, revoked or expired meanwhile
      throw new AppError("NOT_FOUND", "no invitation at this link");
    }
    const user: UserTable = {
      id: newId("usr"),
      workspace_id: invite.workspace_id,
      email: invite.email,
      role: invite.role,
      password_hash: passwordHash,
      created_at: now,
    };
    if (await emailTaken(trx, user.email))
      throw new AppError("CONFLICT", `a user with email ${user.email} already exists`);
    await trx
      .insertInto("users")
      .values(user)
      .execute()
      .catch((err: unknown) => {
        if (isUniqueViolation(err))
          throw new AppError("CONFLICT", `a user with email ${user.email} already exists`);
        throw err;
      });
    const session = await startSession(trx, user.id);
    return { user, session };
  });
}
