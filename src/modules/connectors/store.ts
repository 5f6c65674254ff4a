import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import "./tables.js";
import type { ConnectorTable } from "./tables.js";
import type { ConnectorStatus, ConnectorType, Credentials } from "./types.js";
import type { ServiceDeps } from "../../platform/deps.js";

/** What GET /api/connectors shows: never credentials. */
export interface Connector {
  type: string;
  status: string;
  lastSync: string | null;
  accountName: string | null;
  connectedAt: string;
  lastError: string | null;
}

export const toConnector = (r: ConnectorTable): Connector => ({
  type: r.type,
  status: r.status,
  lastSync: r.last_sync,
  accountName: r.account_name,
  connectedAt: r.connected_at,
  lastError: r.last_error,
});

export async function findConnector(db: DbOrTrx, project: ProjectRef, type: ConnectorType) {
  return db
    .selectFrom("connectors")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("type", "=", type)
    .executeTakeFirst();
}

export async function getConnector(db: DbOrTrx, project: ProjectRef, type: ConnectorType) {
  const row = await findConnector(db, project, type);
  if (!row) throw new AppError("NOT_FOUND", `connector ${type} is not connected`);
  return row;
}

export const sealCredentials = (deps: ServiceDeps, c: Credentials) => deps.secrets.encrypt(JSON.stringify(c));
export const openCredentials = (deps: ServiceDeps, sealed: string): Credentials =>
  JSON.parse(deps.secrets.decrypt(sealed)) as Credentials;

/**
 * Creates or replaces the project's connector of this type (reconnecting keeps history and cursor
 * only when the account is the same one).
 */
export async function saveConnection(
  deps: ServiceDeps,
  db: DbOrTrx,
  project: ProjectRef,
  type: ConnectorType,
  account: { id: string; name: string },
  credentials: Credentials,
): Promise<ConnectorTable> {
  const now = new Date().toISOString();
  const existing = await findConnector(db, project, type);
  const sealed = sealCredentials(deps, credentials);
  if (existing) {
    const sameAccount = existing.account_id === account.id;
    await db
      .updateTable("connectors")
      .set({
        status: "connected",
        account_id: account.id,
        account_name: account.name,
        credentials: sealed,
        cursor: sameAccount ? existing.cursor : "{}",
        last_error: null,
        connected_at: now,
        updated_at: now,
      })
      .where("id", "=", existing.id)
      .execute();
    return (await findConnector(db, project, type))!;
  }
  const row: ConnectorTable = {
    id: newId("con"),
    workspace_id: project.workspaceId,
    project_id: project.id,
    type,
    status: "connected",
    account_id: account.id,
    account_name: account.name,
    credentials: sealed,
    cursor: "{}",
    summary: "{}",
    last_sync: null,
    last_error: null,
    connected_at: now,
    updated_at: now,
  };
  // A parallel connect of the same type may have inserted since our look: then theirs is the row
  // to replace (PostgreSQL waits for it to commit before reporting the conflict).
  const inserted = await db
    .insertInto("connectors")
    .values(row)
    .onConflict((oc) => oc.columns(["project_id", "type"]).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0)
    return saveConnection(deps, db, project, type, account, credentials);
  return row;
}

export async function setStatus(
  db: DbOrTrx,
  connectorId: string,
  status: ConnectorStatus,
  extra: Partial<
    Pick<ConnectorTable, "last_error" | "last_sync" | "cursor" | "summary" | "credentials">
  > = {},
) {
  await db
    .updateTable("connectors")
    .set({ status, ...extra, updated_at: new Date().toISOString() })
    .where("id", "=", connectorId)
    .execute();
}
