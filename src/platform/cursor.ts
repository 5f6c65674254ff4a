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
