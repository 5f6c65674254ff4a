import { type RawBuilder, sql } from "kysely";
import { controlCharIn, controlCharMessage } from "../../../platform/control-chars.js";
import { type Predicate, holds } from "../../../platform/predicates/index.js";
import { validation } from "../../../platform/errors.js";
import { compileSchema, firstSchemaError } from "../../../platform/validation.js";
import { SESSION_DIMENSIONS, type SessionDimensions } from "../ingest/dimensions.js";
import { Filter, type FilterConditionT, type FilterOp, type FilterT } from "../schema.js";

/**
 * The one report filter (docs/decisions/identity-analytics.md, "Filters and cohorts"): a list of
 * conditions, all of which must hold. Each condition's key decides what it looks at:
 * - session keys (`channel`, `source`, `campaign`, `landing_page`, `referrer_domain`, `device`,
 *   `browser`, `os`): the session's values, from its touchpoint row; `utm_source`, `utm_medium`,
 *   `utm_term`, `utm_content`: its landing URL's tags, as the web view reads them (the engine
 *   only); `utm_campaign`: its `campaign`;
 * - event keys (`event`, `page`, `page_no_query`, `country`, `event.<property>`): the event's type,
 *   URL (whole, or without query string and fragment) and data;
 * - person keys (`lead.<property>`, `cohort`): the person (a lead's visitors together).
 * This file parses a filter into the predicate language (platform/predicates), which the engine
 * compiles to its SQL (engine/sql.ts) and whose evaluator tests one value in JS. The row store's
 * SQL here (both dialects, values always bound) serves what is not on the engine: lead properties
 * and the row-store reports. Nothing here builds a regular expression from input.
 */

export const SESSION_KEYS = ["channel", ...SESSION_DIMENSIONS] as const;
/** Session keys read from the landing URL's tags: only the engine has the session's landing URL. */
export const LANDING_TAG_KEYS = ["utm_source", "utm_medium", "utm_term", "utm_content"] as const;
const LANDING_TAG_SET = new Set<string>(LANDING_TAG_KEYS);
export type SessionKey = (typeof SESSION_KEYS)[number];
/** The value a breakdown shows for a missing value; as a filter value it means "no value". */
export const NONE_VALUE = "(none)";
/** Events may carry their visitor's country in `data.$country` (Segment's context.location). */
const COUNTRY_PROPERTY = "$country";

export type Level = "session" | "event" | "person";

/**
 * A condition of the filter in the predicate language (platform/predicates), with its level and its
 * place in the filter. Event properties are one name each (dots and all); `property` is that name
 * for event data and lead properties.
 */
export interface Condition extends Predicate {
  index: number;
  level: Level;
  /** session: a touchpoint column; event: "type", "url" or "data"; person: "lead" or "cohort" */
  field: string;
  property?: string;
  op: FilterOp;
  values: string[];
}

const checkFilter = compileSchema(Filter);

/** A filter given as JSON text (`?filter=`), checked against the documented schema. */
export function parseFilterParam(text: string | undefined, where = "query.filter"): Condition[] {
  if (text === undefined || text.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validation(`${where} must be JSON: an array of conditions`);
  }
  // The query string's own check sees `\u0000` as six characters of text: only now, parsed, is it a
  // NUL, which a property key would carry into a JSON path and a value into a bound parameter.
  const control = controlCharIn(value);
  if (control) throw validation(controlCharMessage(`${where}${control.path}`, control.text));
  return parseFilter(value, where);
}

/** A filter value (body field or parsed query), checked; 400 naming the condition's field. */
export function parseFilter(value: unknown, where = "body.filter"): Condition[] {
  if (value === undefined || value === null) return [];
  if (!checkFilter(value)) throw validation(firstSchemaError(checkFilter, where).message);
  return (value as FilterT).map((c, i) => toCondition(c, i, where));
}

const SESSION_SET = new Set<string>(SESSION_KEYS);
const TEXT_OPS = new Set<FilterOp>(["is", "is_not", "contains", "not_contains", "matches"]);

/** One condition already checked against the schema; `at` names it in errors. */
export function conditionAt(c: FilterConditionT, at: string): Condition {
  return toCondition(c, 0, "", at);
}

function toCondition(c: FilterConditionT, index: number, where: string, named?: string): Condition {
  const at = named ?? `${where}[${index}]`;
  let level: Level;
  let field: string;
  let property: string | undefined;
  if (SESSION_SET.has(c.key)) [level, field] = ["session", c.key];
  else if (c.key === "event") [level, field] = ["event", "type"];
  else if (c.key === "page") [level, field] = ["event", "url"];
  else if (c.key === "page_no_query") [level, field] = ["event", "page"];
  else if (c.key === "utm_campaign") [level, field] = ["session", "campaign"];
  else if (LANDING_TAG_SET.has(c.key)) [level, field] = ["session", c.key];
  else if (c.key === "country") [level, field, property] = ["event", "data", COUNTRY_PROPERTY];
  else if (c.key === "cohort") [level, field] = ["person", "cohort"];
  else if (c.key.startsWith("event.")) [level, field, property] = ["event", "data", c.key.slice(6)];
  else [level, field, property] = ["person", "lead", c.key.slice(5)];
  const raw = c.value === undefined ? [] : Array.isArray(c.value) ? c.value : [c.value];
  const values = raw.map((v) => String(v));
  const path = property === undefined ? undefined : [property];
  const cond: Condition = { index, level, field, property, path, op: c.op, values };
  if (c.op === "set" || c.op === "not_set") {
    if (field === "cohort") throw validation(`${at}.op must be is or is_not for a cohort`);
    return { ...cond, values: [] };
  }
  if (values.length === 0) throw validation(`${at}.value is required for ${c.op}`);
  if (c.op === "gt" || c.op === "lt") {
    if (property === undefined)
      throw validation(`${at}.op ${c.op} applies to event and lead properties only`);
    const num = Number(values[0]);
    if (values.length !== 1 || !Number.isFinite(num)) throw validation(`${at}.value must be one number`);
    return { ...cond, num };
  }
  if (field === "cohort" && c.op !== "is" && c.op !== "is_not")
    throw validation(`${at}.op must be is or is_not for a cohort`);
  if (!TEXT_OPS.has(c.op)) throw validation(`${at}.op is not valid`);
  if ((c.op === "contains" || c.op === "not_contains" || c.op === "matches") && values.length !== 1)
    throw validation(`${at}.value must be one text for ${c.op}`);
  // `(none)` among is / is not's values is the wire form's word for no value.
  if ((c.op === "is" || c.op === "is_not") && values.includes(NONE_VALUE))
    return { ...cond, values: values.filter((v) => v !== NONE_VALUE), absent: true };
  return cond;
}

// ---------------------------------------------------------------- SQL

/** A JSON property of a text column as text ("true"/"false" for booleans), or null. */
export function jsonText(
  column: RawBuilder<unknown>,
  name: string,
  postgres: boolean,
): RawBuilder<string | null> {
  if (postgres) return sql<string | null>`(${column}::jsonb ->> ${name})`;
  const path = `$."${name}"`;
  return sql<
    string | null
  >`(case json_type(${column}, ${path}) when 'true' then 'true' when 'false' then 'false' when 'object' then json_extract(${column}, ${path}) when 'array' then json_extract(${column}, ${path}) else cast(json_extract(${column}, ${path}) as text) end)`;
}

/** A JSON property as a number when it is one, else null (no cast that could fail). */
function jsonNumber(column: RawBuilder<unknown>, name: string, postgres: boolean): RawBuilder<number | null> {
  if (postgres)
    return sql<
      number | null
    >`(case when jsonb_typeof(${column}::jsonb -> ${name}) = 'number' then (${column}::jsonb ->> ${name})::double precision end)`;
  const path = `$."${name}"`;
  return sql<
    number | null
  >`(case when json_type(${column}, ${path}) in ('integer', 'real') then json_extract(${column}, ${path}) end)`;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
/** `*` matches any run of characters, everything else itself (SQL LIKE, escaped). */
export const globToLike = (pattern: string) => likeEscape(pattern).replaceAll("*", "%");

/** One condition over a text expression (and, for gt/lt, a numeric one). Case-insensitive text matches. */
export function conditionSql(
  c: Condition,
  text: RawBuilder<string | null>,
  num: RawBuilder<number | null> | null,
  postgres: boolean,
): RawBuilder<boolean> {
  const like = (pattern: string) =>
    postgres
      ? sql<boolean>`${text} ilike ${pattern} escape '\\'`
      : sql<boolean>`${text} like ${pattern} escape '\\'`;
  switch (c.op) {
    case "set":
      return sql<boolean>`${text} is not null`;
    case "not_set":
      return sql<boolean>`${text} is null`;
    case "gt":
      return sql<boolean>`coalesce(${num} > ${c.num}, false)`;
    case "lt":
      return sql<boolean>`coalesce(${num} < ${c.num}, false)`;
    case "contains":
      return sql<boolean>`coalesce(${like(`%${likeEscape(c.values[0]!)}%`)}, false)`;
    case "not_contains":
      return sql<boolean>`not coalesce(${like(`%${likeEscape(c.values[0]!)}%`)}, false)`;
    case "matches":
      return sql<boolean>`coalesce(${like(globToLike(c.values[0]!))}, false)`;
    case "is":
    case "is_not": {
      const parts: RawBuilder<boolean>[] = [];
      if (c.values.length > 0) parts.push(sql<boolean>`${text} in (${sql.join([...c.values])})`);
      if (c.absent) parts.push(sql<boolean>`${text} is null`);
      const any = sql<boolean>`coalesce((${sql.join(parts, sql` or `)}), false)`;
      return c.op === "is" ? any : sql<boolean>`not ${any}`;
    }
  }
}

/** A property condition (event data, lead properties) over a JSON text column. */
export function propertyConditionSql(
  c: Condition,
  column: RawBuilder<unknown>,
  postgres: boolean,
): RawBuilder<boolean> {
  return conditionSql(
    c,
    jsonText(column, c.property!, postgres),
    jsonNumber(column, c.property!, postgres),
    postgres,
  );
}

/** The page of a URL column: cut at its first `?` or `#` (platform/predicates' `pageOf`). */
function pageSql(url: RawBuilder<unknown>, postgres: boolean): RawBuilder<string> {
  if (postgres) return sql<string>`regexp_replace(${url}, '[?#].*$', '')`;
  const cut = (x: RawBuilder<unknown>, ch: string) =>
    sql<string>`(case when instr(${x}, ${sql.lit(ch)}) > 0 then substr(${x}, 1, instr(${x}, ${sql.lit(ch)}) - 1) else ${x} end)`;
  return cut(cut(url, "#"), "?");
}

/** The event conditions over `events` columns (table or alias `e`); null when there are none. */
export function eventSql(
  conds: Condition[],
  postgres: boolean,
  alias = "events",
): RawBuilder<boolean> | null {
  const list = conds.filter((c) => c.level === "event");
  if (list.length === 0) return null;
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  return sql.join(
    list.map((c) =>
      c.field === "data"
        ? propertyConditionSql(c, col("data"), postgres)
        : c.field === "page"
          ? conditionSql(c, pageSql(col("url"), postgres), null, postgres)
          : conditionSql(c, sql<string>`${col(c.field)}`, null, postgres),
    ),
    sql` and `,
  ) as RawBuilder<boolean>;
}

/** The session conditions over `analytics_touchpoints` columns under `alias`; null when none. */
export function sessionSql(conds: Condition[], postgres: boolean, alias = "t"): RawBuilder<boolean> | null {
  const list = conds.filter((c) => c.level === "session");
  if (list.length === 0) return null;
  const tag = list.find((c) => LANDING_TAG_SET.has(c.field));
  if (tag)
    throw validation(
      `filter[${tag.index}].key ${tag.field} (a landing URL's tag) is not available here: filter by campaign, source or page instead`,
    );
  return sql.join(
    list.map((c) => conditionSql(c, sql<string | null>`${sql.ref(`${alias}.${c.field}`)}`, null, postgres)),
    sql` and `,
  ) as RawBuilder<boolean>;
}

/**
 * The event and session conditions on rows of `events`: the event's own conditions, and its own
 * session's values (an `exists` on its touchpoint). Null when there are none.
 */
export function eventRowWhere(conds: Condition[], postgres: boolean): RawBuilder<boolean> | null {
  const parts: RawBuilder<boolean>[] = [];
  const ev = eventSql(conds, postgres);
  if (ev) parts.push(ev);
  const session = sessionSql(conds, postgres);
  if (session)
    parts.push(sql<boolean>`exists (select 1 from analytics_touchpoints t where t.project_id = events.project_id
      and t.session_id = events.session_id and ${session})`);
  return parts.length === 0 ? null : (sql.join(parts, sql` and `) as RawBuilder<boolean>);
}

// ---------------------------------------------------------------- JS (one value)

/** The condition against one value (null: missing), as its SQL would judge it. */
export const testValue = (c: Condition, value: string | number | boolean | null | undefined): boolean =>
  holds(c, value);

/** The session conditions against a session's channel and dimensions. */
export function testSession(
  conds: Condition[],
  channel: string | null,
  dims: SessionDimensions | null,
): boolean {
  for (const c of conds) {
    if (c.level !== "session") continue;
    const v = c.field === "channel" ? channel : (dims?.[c.field as keyof SessionDimensions] ?? null);
    if (!testValue(c, v)) return false;
  }
  return true;
}

export const hasLevel = (conds: Condition[], level: Level) => conds.some((c) => c.level === level);

/** A condition on one key for display and errors: `channel is organic_search`. */
export const describeCondition = (c: FilterConditionT): string =>
  `${c.key} ${c.op}${c.value === undefined ? "" : ` ${Array.isArray(c.value) ? c.value.join(", ") : c.value}`}`;
