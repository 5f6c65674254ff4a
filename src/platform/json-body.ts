import { AppError } from "./errors.js";

/**
 * How deep a JSON body may nest (objects and arrays, the body itself counting as one level).
 * Deeper bodies are refused before validation: Ajv, JSON.stringify and our own walkers recurse,
 * and 10,000 levels overflow the stack. 64 is far beyond any event `data` or API body we accept.
 */
export const MAX_JSON_DEPTH = 64;

type Fault = { kind: "depth" } | { kind: "number"; path: string };

/**
 * Parses a request body and refuses what JSON allows but Lift cannot store faithfully: nesting past
 * MAX_JSON_DEPTH, and numbers that overflow to ±Infinity (`1e999`), which would be stored as null.
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("VALIDATION_ERROR", "body is not valid JSON");
  }
  const fault = inspect(value, 1);
  if (fault?.kind === "depth")
    throw new AppError("VALIDATION_ERROR", `body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  if (fault?.kind === "number")
    throw new AppError("VALIDATION_ERROR", `body${fault.path} must be a finite number`);
  return value;
}

// Recursion is bounded: it stops at MAX_JSON_DEPTH + 1. The path is only built on the way back
// from a fault, so a clean body costs one visit per value and no string work.
function inspect(value: unknown, depth: number): Fault | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : { kind: "number", path: "" };
  if (value === null || typeof value !== "object") return undefined;
  if (depth > MAX_JSON_DEPTH) return { kind: "depth" };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const fault = inspect(value[i], depth + 1);
      if (fault) return fault.kind === "number" ? { kind: "number", path: `[${i}]${fault.path}` } : fault;
    }
    return undefined;
  }
  for (const key in value) {
    const fault = inspect((value as Record<string, unknown>)[key], depth + 1);
    if (fault) return fault.kind === "number" ? { kind: "number", path: `.${key}${fault.path}` } : fault;
  }
  return undefined;
}
