/**
 * The condition builder's model: a list of clauses, all of which must hold (one GrowthBook
 * condition object). Conditions the builder cannot show (or, nested logic) stay JSON.
 */
export type Op =
  | "is"
  | "isNot"
  | "in"
  | "notIn"
  | "gt"
  | "gte"
  | "lt"
  | "lte"
  | "exists"
  | "notExists"
  | "contains"
  | "veq"
  | "vgt"
  | "vgte"
  | "vlt"
  | "vlte"
  | "inCohort"
  | "notInCohort";

/** How a clause's value is typed: text, a number, or true/false. */
export type Kind = "text" | "number" | "boolean";

export interface Clause {
  attribute: string;
  op: Op;
  /** For lists: comma-separated. */
  value: string;
  kind: Kind;
}

export const OPS: { value: Op; label: string; mongo: string | null }[] = [
  { value: "is", label: "is", mongo: "$eq" },
  { value: "isNot", label: "is not", mongo: "$ne" },
  { value: "in", label: "is one of", mongo: "$in" },
  { value: "notIn", label: "is not one of", mongo: "$nin" },
  { value: "gt", label: "is greater than", mongo: "$gt" },
  { value: "gte", label: "is at least", mongo: "$gte" },
  { value: "lt", label: "is less than", mongo: "$lt" },
  { value: "lte", label: "is at most", mongo: "$lte" },
  { value: "exists", label: "is set", mongo: null },
  { value: "notExists", label: "is not set", mongo: null },
  { value: "contains", label: "(a list) contains", mongo: "$elemMatch" },
  { value: "veq", label: "version is", mongo: "$veq" },
  { value: "vgt", label: "version is after", mongo: "$vgt" },
  { value: "vgte", label: "version is at least", mongo: "$vgte" },
  { value: "vlt", label: "version is before", mongo: "$vlt" },
  { value: "vlte", label: "version is at most", mongo: "$vlte" },
  // Cohorts (docs/flags.md): on the attribute id (the visitor) or leadId; served by the server only.
  { value: "inCohort", label: "is in cohort", mongo: "$inGroup" },
  { value: "notInCohort", label: "is not in cohort", mongo: "$notInGroup" },
];

const NUMERIC: Op[] = ["gt", "gte", "lt", "lte"];
const VERSION: Op[] = ["veq", "vgt", "vgte", "vlt", "vlte"];
export const needsValue = (op: Op) => op !== "exists" && op !== "notExists";
export const isList = (op: Op) => op === "in" || op === "notIn";
export const isCohort = (op: Op) => op === "inCohort" || op === "notInCohort";
/** The attributes a cohort is tested on: the visitor id and the lead id. */
export const COHORT_ATTRIBUTES = ["id", "leadId"];
/** The value kind a clause may choose (comparisons are numbers, versions text). */
export const kindChoosable = (op: Op) =>
  !NUMERIC.includes(op) && !VERSION.includes(op) && needsValue(op) && !isCohort(op);

function typed(kind: Kind, text: string): unknown {
  const t = text.trim();
  if (kind === "number") {
    const n = Number(t);
    if (t === "" || !Number.isFinite(n)) throw new Error(`"${text}" is not a number`);
    return n;
  }
  if (kind === "boolean") return t === "true";
  return text;
}

/** The clauses as GrowthBook's condition (undefined when there are none). */
export function toCondition(clauses: Clause[]): Record<string, unknown> | undefined {
  const out: Record<string, Record<string, unknown>> = {};
  for (const c of clauses) {
    const attribute = c.attribute.trim();
    if (!attribute) throw new Error("every condition needs an attribute");
    const kind: Kind = NUMERIC.includes(c.op) ? "number" : VERSION.includes(c.op) ? "text" : c.kind;
    const ops = out[attribute] ?? {};
    out[attribute] = ops;
    const mongo = OPS.find((o) => o.value === c.op)!.mongo;
    if (c.op === "exists" || c.op === "notExists") ops.$exists = c.op === "exists";
    else if (c.op === "contains") ops.$elemMatch = { $eq: typed(kind, c.value) };
    else if (isCohort(c.op)) {
      if (!COHORT_ATTRIBUTES.includes(attribute))
        throw new Error("a cohort is tested on the attribute id or leadId");
      if (!c.value) throw new Error("choose a cohort");
      ops[mongo!] = c.value;
    } else if (isList(c.op)) ops[mongo!] = c.value.split(",").map((v) => typed(kind, v.trim()));
    else ops[mongo!] = typed(kind, c.value);
  }
  return Object.keys(out).length ? out : undefined;
}

const kindOf = (v: unknown): Kind =>
  typeof v === "number" ? "number" : typeof v === "boolean" ? "boolean" : "text";

/** The clauses of a condition, or null when the builder cannot show it (it stays JSON). */
export function toClauses(condition: Record<string, unknown> | undefined): Clause[] | null {
  if (!condition) return [];
  const clauses: Clause[] = [];
  for (const [attribute, v] of Object.entries(condition)) {
    if (attribute.startsWith("$")) return null;
    if (v === null || typeof v !== "object") {
      clauses.push({ attribute, op: "is", value: String(v), kind: kindOf(v) });
      continue;
    }
    if (Array.isArray(v)) return null;
    for (const [mongo, arg] of Object.entries(v as Record<string, unknown>)) {
      if (mongo === "$exists" && typeof arg === "boolean") {
        clauses.push({ attribute, op: arg ? "exists" : "notExists", value: "", kind: "text" });
        continue;
      }
      if (mongo === "$elemMatch") {
        const eq = (arg as Record<string, unknown> | null)?.$eq;
        if (eq === undefined || Object.keys(arg as object).length !== 1 || typeof eq === "object")
          return null;
        clauses.push({ attribute, op: "contains", value: String(eq), kind: kindOf(eq) });
        continue;
      }
      const op = OPS.find((o) => o.mongo === mongo && o.value !== "contains");
      if (!op) return null;
      if (isList(op.value)) {
        if (
          !Array.isArray(arg) ||
          arg.some((x) => x === null || typeof x === "object" || String(x).includes(","))
        )
          return null;
        clauses.push({ attribute, op: op.value, value: arg.join(", "), kind: kindOf(arg[0]) });
      } else {
        if (arg === null || typeof arg === "object") return null;
        clauses.push({ attribute, op: op.value, value: String(arg), kind: kindOf(arg) });
      }
    }
  }
  return clauses;
}
