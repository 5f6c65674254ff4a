import { type SelectQueryBuilder, sql } from "kysely";
import { validation } from "./errors.js";

/**
 * Keyset pagination over (created_at, id), newest first: the cursor is the last row's pair,
 * base64url JSON. Opaque to callers; a cursor not made here is a 400.
 */
export const encodeCursor = (createdAt: string, id: string) =>
  Buffer.from(JSON.stringify([createdAt, id])).toString("base64url");

export function decodeCursor(cursor: string): [string, string] {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string")
      return [v[0], v[1]];
  } catch {
    // falls through to the validation error
  }
  throw validation("query.cursor is not a cursor returned by this endpoint");
}

/**
 * A list query newest first from the cursor on, one row more than the page (to know whether
 * another page follows). The table must have `created_at` and `id`; the query reads one table.
 */
export function newestFirstFrom<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  cursor: string | undefined,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  const q = query
    .orderBy(sql`created_at`, "desc")
    .orderBy(sql`id`, "desc")
    .limit(limit + 1);
  if (!cursor) return q;
  const [createdAt, id] = decodeCursor(cursor);
  return q.where(sql<boolean>`(created_at < ${createdAt} or (created_at = ${createdAt} and id < ${id}))`);
}

/** The page of `rows` (fetched by `newestFirstFrom`) and the cursor of the next one, if any. */
export function pageOf<R extends { created_at: string; id: string }>(
  rows: R[],
  limit: number,
): { page: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null };
}
