import { creationTime } from "../../platform/creation-time.js";
import { hashPassword, newId, verifyPassword } from "../../platform/crypto.js";
import { type DbOrTrx, isUniqueViolation } from "../../platform/db/index.js";
import { AppError, notFound } from "../../platform/errors.js";
import type { UserT } from "./schema.js";
import type { Role, UserTable } from "./tables.js";

export const normEmail = (e: string) => e.trim().toLowerCase();
export const toUser = (u: UserTable): UserT => ({
  id: u.id,
  email: u.email,
  role: u.role,
  workspaceId: u.workspace_id,
  createdAt: u.created_at,
});

export async function createUser(
  db: DbOrTrx,
  workspaceId: string,
  input: { email: string; role: Role; password: string },
): Promise<UserT> {
  const email = normEmail(input.email);
  const taken = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
  if (taken) throw new AppError("CONFLICT", `a user with email ${email} already exists`);
  const row: UserTable = {
    id: newId("usr"),
    workspace_id: workspaceId,
    email,
    role: input.role,
    password_hash: await hashPassword(input.password),
    created_at: creationTime(),
  };
  await db
    .insertInto("users")
    .values(row)
    .execute()
    .catch((err: unknown) => {
      // the check above passed for two requests at once; the unique index picked one
      if (isUniqueViolation(err)) throw new AppError("CONFLICT", `a user with email ${email} already exists`);
      throw err;
    });
  return toUser(row);
}

export async function listUsers(db: DbOrTrx, workspaceId: string): Promise<UserT[]> {
  const rows = await db
    .selectFrom("users")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toUser);
}

export async function deleteUser(db: DbOrTrx, workspaceId: string, userId: string, actingUserId: string) {
  if (userId === actingUserId) throw new AppError("CONFLICT", "you cannot delete your own user");
  const res = await db
    .deleteFrom("users")
    .where("id", "=", userId)
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound("user", userId);
  return { id: userId, deleted: true };
}

/** Checks email and password; the same error for an unknown email and a wrong password. */
export async function authenticateUser(db: DbOrTrx, email: string, password: string): Promise<UserT> {
  const row = await db
    .selectFrom("users")
    .selectAll()
    .where("email", "=", normEmail(email))
    .executeTakeFirst();
  // Verify against a dummy hash when the user is unknown so timing does not reveal which emails exist.
  const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_HASH);
  if (!row || !ok) throw new AppError("UNAUTHORIZED", "invalid email or password");
  return toUser(row);
}
const DUMMY_HASH =
  "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==";

export async function getUser(db: DbOrTrx, userId: string): Promise<UserT> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
  if (!row) throw notFound("user", userId);
  return toUser(row);
}
