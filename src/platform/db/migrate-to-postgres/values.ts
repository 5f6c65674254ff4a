/**
 * Values on their way from SQLite to PostgreSQL, and the one canonical form both sides' rows are
 * hashed in. SQLite is read with safe integers (bigint), so no integer is rounded through a double;
 * PostgreSQL is read as the server's text, so the canonical form is built from what it stored.
 */

/** How a PostgreSQL column's values are converted and compared. */
export type TypeClass = "int" | "float" | "bool" | "text";

/** The class of a type as `format_type` spells it; anything else is refused before copying. */
export function typeClass(pgType: string): TypeClass | undefined {
  if (["smallint", "integer", "bigint"].includes(pgType)) return "int";
  if (["double precision", "real"].includes(pgType) || pgType.startsWith("numeric")) return "float";
  if (pgType === "boolean") return "bool";
  if (pgType === "text" || pgType === "json" || pgType === "jsonb" || pgType.startsWith("character"))
    return "text";
  return undefined;
}

export class ValueError extends Error {}

/**
 * A SQLite value as an element of the array parameter PostgreSQL casts to the column's type:
 * integers as decimal text (exact past 2^53), flags 0/1 as booleans where PostgreSQL has a
 * boolean. Blobs have no column to go to in Lift's schema, so one is an error, not a guess.
 */
export function toPg(v: unknown, cls: TypeClass): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return cls === "bool" ? v !== 0n : v.toString();
  if (typeof v === "number") return cls === "bool" ? v !== 0 : v;
  if (typeof v === "string") return v;
  throw new ValueError(`a ${Buffer.isBuffer(v) ? "blob" : typeof v} where PostgreSQL has ${cls}`);
}

/**
 * A value in canonical form, from SQLite's side. Numbers are numbers (integers in decimal, floats
 * in JavaScript's shortest round-trip form, which PostgreSQL's float8 text parses back to the same
 * double), flags 0/1, text as a JSON string, null as null.
 */
export function canonicalSqlite(v: unknown, cls: TypeClass): string {
  if (v === null || v === undefined) return "null";
  // text where PostgreSQL has a number cannot have been copied: it compares unequal, as it should
  if (typeof v === "string") return JSON.stringify(v);
  if (Buffer.isBuffer(v)) return `blob:${v.toString("hex")}`;
  const n = v as number | bigint;
  switch (cls) {
    case "int":
      return typeof n === "bigint" || Number.isInteger(n) ? BigInt(n).toString() : String(n);
    case "float":
      return String(Number(n));
    case "bool":
      return Number(n) !== 0 ? "1" : "0";
    case "text":
      return JSON.stringify(String(n));
  }
}

/** A value in canonical form, from PostgreSQL's text output (see `canonicalSqlite`). */
export function canonicalPg(v: string | null, cls: TypeClass): string {
  if (v === null) return "null";
  switch (cls) {
    case "int":
      return v;
    case "float":
      return String(Number(v));
    case "bool":
      return v === "t" ? "1" : "0";
    case "text":
      return JSON.stringify(v);
  }
}

/**
 * A keyset position as stored in `lift_copy_progress.last_key`: JSON, with SQLite integers kept
 * exact as `{"i": "<decimal>"}`, so the next read binds the same values it stopped at.
 */
export function encodeKey(values: unknown[]): string {
  return JSON.stringify(values.map((v) => (typeof v === "bigint" ? { i: v.toString() } : v)));
}

export function decodeKey(text: string): unknown[] {
  return (JSON.parse(text) as unknown[]).map((v) =>
    v !== null && typeof v === "object" && "i" in v ? BigInt((v as { i: string }).i) : v,
  );
}
