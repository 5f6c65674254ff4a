import { creationTime } from "../../platform/creation-time.js";
import { newId } from "../../platform/crypto.js";
import { type DbHandle, isUniqueViolation, type DbOrTrx } from "../../platform/db/index.js";
import { AppError, notFound } from "../../platform/errors.js";
import type { CommunicationTable } from "./tables.js";
import type { BlockT, CommTypeT, TemplateSource } from "../../platform/mail/template/blocks.js";
import { builtinCompiled, builtinSource, CATALOG_IDS, resolveForSend } from "./catalog.js";
import {
  type CompiledTemplate,
  compileTemplate,
  renderTemplate,
} from "../../platform/mail/template/compile.js";
import { referencedKeys, type Variables } from "../../platform/mail/template/engine.js";
import "./tables.js";

export interface Communication {
  id: string;
  name: string;
  commType: CommTypeT;
  slots: Record<string, string>;
  blocks: BlockT[];
  /** Variables the template references; a `?` suffix marks an optional one. */
  variables: string[];
  builtIn: boolean;
  /** A built-in id with a workspace version. */
  overridden: boolean;
  createdAt: string | null;
  updatedAt: string | null;
}

function variablesOf(c: CompiledTemplate): string[] {
  const k = referencedKeys(c.subject);
  referencedKeys(c.html, k);
  referencedKeys(c.text, k);
  const opt = [...k.optional].filter((v) => !k.required.has(v)).map((v) => `${v}?`);
  return [...[...k.required].sort(), ...opt.sort()];
}

function fromRow(r: CommunicationTable): Communication {
  return {
    id: r.id,
    name: r.name,
    commType: r.comm_type,
    slots: JSON.parse(r.slots),
    blocks: JSON.parse(r.blocks),
    variables: variablesOf(JSON.parse(r.compiled)),
    builtIn: builtinSource(r.id) !== undefined,
    overridden: builtinSource(r.id) !== undefined,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

async function fromBuiltin(id: string): Promise<Communication> {
  const src = builtinSource(id)!;
  return {
    id,
    ...structuredClone(src),
    variables: variablesOf(await builtinCompiled(id)!),
    builtIn: true,
    overridden: false,
    createdAt: null,
    updatedAt: null,
  };
}

const findRow = (db: DbOrTrx, workspaceId: string, id: string) =>
  db
    .selectFrom("communications")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", id)
    .executeTakeFirst();

export async function listCommunications(db: DbOrTrx, workspaceId: string): Promise<Communication[]> {
  const rows = await db
    .selectFrom("communications")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .execute();
  const own = rows.map(fromRow);
  const overridden = new Set(own.map((c) => c.id));
  const builtins = await Promise.all(CATALOG_IDS.filter((id) => !overridden.has(id)).map(fromBuiltin));
  return [...own, ...builtins];
}

export async function getCommunication(db: DbOrTrx, workspaceId: string, id: string): Promise<Communication> {
  const row = await findRow(db, workspaceId, id);
  if (row) return fromRow(row);
  if (builtinSource(id)) return fromBuiltin(id);
  throw notFound("communication", id);
}

export interface CommunicationInput {
  id?: string;
  name: string;
  commType: CommTypeT;
  slots: Record<string, string>;
  blocks: BlockT[];
}

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export async function createCommunication(db: DbOrTrx, workspaceId: string, input: CommunicationInput) {
  const id = input.id ?? newId("comm");
  if (!ID_RE.test(id)) throw new AppError("VALIDATION_ERROR", "body.id must be 1-64 letters, digits, _ or -");
  if (await findRow(db, workspaceId, id))
    throw new AppError("CONFLICT", `communication ${id} already exists`);
  // A catalog id may be created once: that row is the workspace's version of the built-in.
  return save(db, workspaceId, id, input, null);
}

export async function updateCommunication(
  db: DbOrTrx,
  workspaceId: string,
  id: string,
  patch: Partial<Omit<CommunicationInput, "id">>,
): Promise<Communication> {
  const row = await findRow(db, workspaceId, id);
  const base: TemplateSource | undefined = row
    ? {
        name: row.name,
        commType: row.comm_type,
        slots: JSON.parse(row.slots),
        blocks: JSON.parse(row.blocks),
      }
    : builtinSource(id);
  if (!base) throw notFound("communication", id);
  const next = { ...structuredClone(base), ...patch };
  return save(db, workspaceId, id, next, row?.created_at ?? null);
}

async function save(
  db: DbOrTrx,
  workspaceId: string,
  id: string,
  src: TemplateSource,
  createdAt: string | null,
): Promise<Communication> {
  const compiled = await compileTemplate(src); // throws VALIDATION_ERROR
  const now = new Date().toISOString();
  const row: CommunicationTable = {
    workspace_id: workspaceId,
    id,
    name: src.name,
    comm_type: src.commType,
    slots: JSON.stringify(src.slots),
    blocks: JSON.stringify(src.blocks),
    compiled: JSON.stringify(compiled),
    created_at: createdAt ?? creationTime(),
    updated_at: now,
  };
  if (createdAt) {
    const { workspace_id: _w, id: _i, ...set } = row;
    await db
      .updateTable("communications")
      .set(set)
      .where("workspace_id", "=", workspaceId)
      .where("id", "=", id)
      .execute();
  } else {
    await db
      .insertInto("communications")
      .values(row)
      .execute()
      .catch((err: unknown) => {
        // two creates of one id passed the existence check at once; the primary key picked one
        if (isUniqueViolation(err)) throw new AppError("CONFLICT", `communication ${id} already exists`);
        throw err;
      });
  }
  return fromRow(row);
}

/** Deletes a workspace template; deleting a catalog override restores the built-in version. */
export async function deleteCommunication(db: DbOrTrx, workspaceId: string, id: string) {
  const res = await db
    .deleteFrom("communications")
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) {
    if (builtinSource(id)) throw new AppError("CONFLICT", `built-in communication ${id} cannot be deleted`);
    throw notFound("communication", id);
  }
  return { id, deleted: true };
}

/** Renders with the given sample variables; unfilled placeholders stay visible and are listed. */
export async function previewCommunication(
  handle: DbHandle,
  workspaceId: string,
  id: string,
  variables: Variables,
) {
  const t = await resolveForSend(handle, workspaceId, id);
  if (!t) throw notFound("communication", id);
  const missing = new Set<string>();
  const r = renderTemplate(t.compiled, variables, missing);
  return { ...r, missing: [...missing].sort() };
}

/**
 * Renders a template body that is not saved (the dashboard's live preview of unsaved edits):
 * compiled exactly as a save would compile it, so a preview that works is a body that saves.
 */
export async function previewDraft(src: TemplateSource, variables: Variables) {
  const compiled = await compileTemplate(src); // throws VALIDATION_ERROR like a save
  const missing = new Set<string>();
  const r = renderTemplate(compiled, variables, missing);
  return { ...r, missing: [...missing].sort() };
}
