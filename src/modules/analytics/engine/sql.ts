import { type Condition, NONE_VALUE } from "../filters/filter.js";

/**
 * The report filter (filter.ts) in the engine's SQL (DuckDB), every value bound. Column names come
 * from fixed lists, never from a caller; a property's JSON path is a bound value too.
 *
 * The SQL written here and in the reports keeps to what ClickHouse also has (docs/scale.md):
 * `ilike`, `json_extract_string`, `arg_min`, `count(distinct)`, CTEs; lists go as one bound array.
 */

/** One query's bound values: `q.v(x)` binds x and gives its placeholder. */
export class EngineQuery {
  readonly params: unknown[] = [];

  v(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /**
   * The query and its values as the engine takes them. DuckDB refuses a value no placeholder uses,
   * and a condition may bind a value its operator then does not need (a JSON path for `gt`): those
   * are dropped and the placeholders renumbered. (Placeholders appear only as `$n`: no caller text
   * is ever written into the SQL.)
   */
  bound(text: string): [string, unknown[]] {
    const used = new Set<number>();
    for (const m of text.matchAll(/\$(\d+)/g)) used.add(Number(m[1]));
    if (used.size === this.params.length) return [text, this.params];
    const renumber = new Map<number, number>();
    const params: unknown[] = [];
    for (let i = 1; i <= this.params.length; i++)
      if (used.has(i)) {
        params.push(this.params[i - 1]);
        renumber.set(i, params.length);
      }
    return [text.replace(/\$(\d+)/g, (_, n: string) => `$${renumber.get(Number(n))}`), params];
  }

  /** A bound list of text, usable as `x in (select unnest(…))`. */
  list(values: Iterable<string>): string {
    return `(select unnest(${this.v([...values])}::varchar[]))`;
  }
}

/** A JSON property of a text column as text ('true'/'false' for booleans, JSON for objects), or null. */
export const jsonText = (q: EngineQuery, column: string, name: string): string =>
  `json_extract_string(${column}, ${q.v(jsonPath(name))})`;

/** A JSON property as a number when it is one, else null (no cast that could fail). */
export const jsonNumber = (q: EngineQuery, column: string, name: string): string => {
  const path = q.v(jsonPath(name));
  return `(case when json_type(${column}, ${path}) in ('UBIGINT', 'BIGINT', 'DOUBLE') then cast(json_extract_string(${column}, ${path}) as double) end)`;
};

/** `$."name"`: the property itself, dots and all (the row store reads it the same way). */
const jsonPath = (name: string) => `$."${name.replaceAll('"', '\\"')}"`;

/**
 * A `*` pattern as an RE2 expression matched against the whole text (`*`: any run of characters,
 * newlines too; every other character itself), case-sensitive unless `ignoreCase`. RE2 matches in
 * linear time; DuckDB's LIKE with a bound pattern backtracks (`%a%a%a%b` against a 4 KB URL ran for
 * minutes), and a caller chooses both pattern and URL. ASCII punctuation is escaped: RE2 reads an
 * escaped punctuation character as itself. Matched with `regexp_full_match` (DuckDB; ClickHouse:
 * `match(text, '^(?:…)$')`, RE2 too).
 */
export const globToRegex = (pattern: string, ignoreCase = false): string =>
  `(?s${ignoreCase ? "i" : ""}:${pattern
    .split("*")
    .map((piece) => piece.replace(/[!-/:-@[-\x60{-~]/g, "\\$&"))
    .join(".*")})`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One condition over a text expression (and, for gt/lt, a numeric one, made only then: a value
 * bound but not used is an error); text matches ignore case.
 */
export function conditionSql(q: EngineQuery, c: Condition, text: string, num: (() => string) | null): string {
  const like = (pattern: string) => `coalesce(${text} ilike ${q.v(pattern)} escape '\\', false)`;
  switch (c.op) {
    case "set":
      return `(${text} is not null)`;
    case "not_set":
      return `(${text} is null)`;
    case "gt":
      return `coalesce(${num?.() ?? "null"} > ${q.v(c.num)}, false)`;
    case "lt":
      return `coalesce(${num?.() ?? "null"} < ${q.v(c.num)}, false)`;
    case "contains":
      return like(`%${likeEscape(c.values[0]!)}%`);
    case "not_contains":
      return `(not ${like(`%${likeEscape(c.values[0]!)}%`)})`;
    case "matches":
      return `coalesce(regexp_full_match(${text}, ${q.v(globToRegex(c.values[0]!, true))}), false)`;
    case "is":
    case "is_not": {
      const vals = c.values.filter((v) => v !== NONE_VALUE);
      const parts: string[] = [];
      if (vals.length > 0) parts.push(`${text} in ${q.list(vals)}`);
      if (c.values.includes(NONE_VALUE)) parts.push(`${text} is null`);
      const any = `coalesce((${parts.join(" or ")}), false)`;
      return c.op === "is" ? any : `(not ${any})`;
    }
  }
}

/** The event conditions over the engine's `events` under `alias`; null when there are none. */
export function eventConditions(q: EngineQuery, conds: Condition[], alias = "e"): string | null {
  const list = conds.filter((c) => c.level === "event");
  if (list.length === 0) return null;
  return list
    .map((c) =>
      c.field === "data"
        ? conditionSql(q, c, jsonText(q, `${alias}.data`, c.property!), () =>
            jsonNumber(q, `${alias}.data`, c.property!),
          )
        : conditionSql(q, c, `${alias}.${c.field === "url" ? "url" : "type"}`, null),
    )
    .join(" and ");
}

const SESSION_COLUMN = new Set([
  "channel",
  "source",
  "campaign",
  "landing_page",
  "referrer_domain",
  "device",
  "browser",
  "os",
]);

/** The session conditions over the engine's `sessions` columns under `alias`; null when none. */
export function sessionConditions(q: EngineQuery, conds: Condition[], alias = "s"): string | null {
  const list = conds.filter((c) => c.level === "session");
  if (list.length === 0) return null;
  return list
    .map((c) => {
      if (!SESSION_COLUMN.has(c.field)) throw new Error(`not a session key: ${c.field}`);
      return conditionSql(q, c, `${alias}.${c.field}`, null);
    })
    .join(" and ");
}

/** `a and b and …` of the parts given (true when none). */
export const allOf = (...parts: (string | null | undefined | false)[]): string => {
  const list = parts.filter((p): p is string => typeof p === "string" && p !== "");
  return list.length === 0 ? "true" : list.map((p) => `(${p})`).join(" and ");
};

/**
 * The person key of a row with a visitor column, given the project's links joined as `l`
 * (`l:<lead>` for a linked visitor, `v:<visitor>` else), as analytics keys people everywhere.
 */
export const personKeySql = (visitor: string, lead = "l.lead_id") =>
  `(case when ${lead} is not null then 'l:' || ${lead} else 'v:' || ${visitor} end)`;
