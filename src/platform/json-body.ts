import { AppError } from "./errors.js";

/**
 * How deep a JSON body may nest (objects and arrays, the body itself counting as one level).
 * Deeper bodies are refused before validation: Ajv, JSON.stringify and our own walkers recurse,
 * and 10,000 levels overflow the stack. 64 is far beyond any event `data` or API body we accept.
 */
export const MAX_JSON_DEPTH = 64;

type Fault = { kind: "depth" } | { kind: "number" | "nul"; path: string };

/**
 * Parses a request body and refuses what JSON allows but Lift cannot store faithfully: nesting past
 * MAX_JSON_DEPTH, numbers that overflow to ±Infinity (`1e999`), which would be stored as null, and
 * strings holding U+0000, which PostgreSQL text cannot hold (SQLite would truncate them in places).
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("VALIDATION_ERROR", "body is not valid JSON");
  }
  // A NUL can only arrive escaped (raw control characters are invalid JSON): strings are looked at
  // only when the text has the escape.
  const fault = inspect(value, 1, text.includes("\\u0000"));
  if (fault?.kind === "depth")
    throw new AppError("VALIDATION_ERROR", `body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  if (fault?.kind === "number")
    throw new AppError("VALIDATION_ERROR", `body${fault.path} must be a finite number`);
  if (fault?.kind === "nul")
    throw new AppError("VALIDATION_ERROR", `body${fault.path} must not contain NUL (\\u0000) characters`);
  return value;
}

// Recursion is bounded: it stops at MAX_JSON_DEPTH + 1. The path is only built on the way back
// from a fault, so a clean body costs one visit per value and no string work.
function inspect(value: unknown, depth: number, nul: boolean): Fault | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : { kind: "number", path: "" };
  if (nul && typeof value === "string")
    return value.includes("\u0000") ? { kind: "nul", path: "" } : undefined;
  if (value === null || typeof value !== "object") return undefined;
  if (depth > MAX_JSON_DEPTH) return { kind: "depth" };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const fault = inspect(value[i], depth + 1, nul);
      if (fault) return fault.kind === "depth" ? fault : { kind: fault.kind, path: `[${i}]${fault.path}` };
    }
    return undefined;
  }
  for (const key in value) {
    if (nul && key.includes("\u0000")) return { kind: "nul", path: "" };
    const fault = inspect((value as Record<string, unknown>)[key], depth + 1, nul);
    if (fault) return fault.kind === "depth" ? fault : { kind: fault.kind, path: `.${key}${fault.path}` };
  }
  return undefined;
}
