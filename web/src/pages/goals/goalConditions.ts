import type { Condition, FilterOp } from "../../components/filter";

/** The operators a conversion goal's conditions can say (the goals API: eq, neq, gt, lt, contains, exists). */
export const GOAL_OPS: FilterOp[] = ["is", "is_not", "contains", "gt", "lt", "set", "not_set"];

type GoalCondition = string | number | boolean | null | Record<string, unknown>;

/** Builder rows for a goal's conditions, or null when they say more than the builder can (gte, in …). */
export function rowsOf(conditions: Record<string, GoalCondition> | null | undefined): Condition[] | null {
  const rows: Condition[] = [];
  for (const [name, c] of Object.entries(conditions ?? {})) {
    const key = `event.${name}`;
    if (c === null || typeof c !== "object") {
      if (c === null) return null;
      rows.push({ key, op: "is", value: typeof c === "number" ? c : String(c) });
      continue;
    }
    const entries = Object.entries(c);
    if (entries.length !== 1) return null;
    const [op, v] = entries[0]!;
    if (op === "eq" && v !== null && typeof v !== "object") rows.push({ key, op: "is", value: String(v) });
    else if (op === "neq" && v !== null && typeof v !== "object")
      rows.push({ key, op: "is_not", value: String(v) });
    else if ((op === "gt" || op === "lt") && typeof v === "number") rows.push({ key, op, value: v });
    else if (op === "contains" && typeof v === "string") rows.push({ key, op: "contains", value: v });
    else if (op === "exists" && typeof v === "boolean") rows.push({ key, op: v ? "set" : "not_set" });
    else return null;
  }
  return rows;
}

/** The goals API's conditions from builder rows (incomplete rows left out); null when none. */
export function conditionsOf(rows: Condition[]): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    const name = r.key.startsWith("event.") ? r.key.slice(6) : "";
    if (!name) continue;
    const v = Array.isArray(r.value) ? r.value[0] : r.value;
    if (r.op === "set" || r.op === "not_set") out[name] = { exists: r.op === "set" };
    else if (v === undefined || v === "") continue;
    else if (r.op === "is") out[name] = v;
    else if (r.op === "is_not") out[name] = { neq: v };
    else if (r.op === "contains") out[name] = { contains: String(v) };
    else if (r.op === "gt" || r.op === "lt") out[name] = { [r.op]: Number(v) };
  }
  return Object.keys(out).length > 0 ? out : null;
}
