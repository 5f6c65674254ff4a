import { type Predicate, trimSlash, urlPatternKind } from "../../../platform/predicates/index.js";
import { type Condition, LANDING_TAG_KEYS } from "../filters/filter.js";

/**
 * The predicate language (platform/predicates) in the engine's SQL (DuckDB), every value bound: the
 * one SQL compiler of goals' conditions, the report filter (filter.ts) and cohorts. Column names come
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
export const jsonText = (q: EngineQuery, column: string, name: string | readonly string[]): string =>
  `json_extract_string(${column}, ${q.v(jsonPath(name))})`;

/** A JSON property as a number when it is one, else null (no cast that could fail). */
export const jsonNumber = (q: EngineQuery, column: string, name: string | readonly string[]): string => {
  const path = q.v(jsonPath(name));
  return `(case when json_type(${column}, ${path}) in ('UBIGINT', 'BIGINT', 'DOUBLE') then cast(json_extract_string(${column}, ${path}) as double) end)`;
};

/**
 * `$."name"`: the property itself, dots and all (the row store reads it the same way); a path of
 * several names reads nested objects, `$."meta"."src"`.
 */
const jsonPath = (name: string | readonly string[]) =>
  `$${(typeof name === "string" ? [name] : name).map((n) => `."${n.replaceAll('"', '\\"')}"`).join("")}`;

/**
 * A `*` pattern as an RE2 expression matched against the whole text (`*`: any run of characters,
 * newlines too; every other character itself), case-sensitive unless `ignoreCase`. RE2 matches in
 * linear time; DuckDB's LIKE with a bound pattern backtracks (a few stars against a long URL ran
 * for minutes), and a caller chooses both pattern and URL. ASCII punctuation is escaped: RE2 reads
 * an escaped punctuation character as itself. Matched with `regexp_full_match` (DuckDB; ClickHouse:
 * `match(text, '^(?:…)$')`, RE2 too).
 */
export const globToRegex = (pattern: string, ignoreCase = false): string =>
  `(?s${ignoreCase ? "i" : ""}:${pattern
    .split("*")
    .map((piece) => piece.replace(/[!-/:-@[-\x60{-~]/g, "\\$&"))
    .join(".*")})`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** What a predicate reads, in SQL: its text; for a JSON property also its JSON type and number. */
interface ValueSql {
  text: string;
  /** the JSON type (`VARCHAR`, `NULL`, …); only for a JSON property */
  jsonType?: () => string;
  /** the value as a number when it is a JSON number, else null; only for a JSON property */
  num?: () => string;
}

/** A JSON property under `column` as the predicate reads it (each part bound only when used). */
function jsonValue(q: EngineQuery, column: string, path: readonly string[]): ValueSql {
  return {
    text: jsonText(q, column, path),
    jsonType: () => `json_type(${column}, ${q.v(jsonPath(path))})`,
    num: () => jsonNumber(q, column, path),
  };
}

// The parts of a URL `new URL` would see (scheme, host, path, query), for URLs of the usual shape.
const URL_RE = "'^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]+)([^?#]*)(\\?[^#]*)?'";
const trimSlashSql = (x: string) =>
  `(case when length(${x}) > 1 and suffix(${x}, '/') then left(${x}, length(${x}) - 1) else ${x} end)`;

/** The URL pattern (platform/predicates/url.ts) against a URL column, as `urlMatches` judges it. */
function urlSql(q: EngineQuery, pattern: string, url: string): string {
  const re = q.v(globToRegex(trimSlash(pattern), true));
  const test = (x: string) => `regexp_full_match(${x}, ${re})`;
  const part = (n: number) => `regexp_extract(${url}, ${URL_RE}, ${n})`;
  const host = part(2);
  const path = trimSlashSql(`(case when ${part(3)} = '' then '/' else ${part(3)} end)`);
  const search = `(case when ${part(4)} = '?' then '' else ${part(4)} end)`;
  const kind = urlPatternKind(pattern);
  const parsed =
    kind === "path"
      ? `${test(path)} or ${test(`${path} || ${search}`)}`
      : kind === "whole"
        ? `${test(trimSlashSql(url))} or ${test(`${part(1)} || '://' || ${host} || ${path}`)}`
        : `${test(`${host} || ${path}`)} or ${test(`${host} || ${path} || ${search}`)}`;
  return `coalesce(case when regexp_matches(${url}, ${URL_RE}) then (${parsed}) else ${test(trimSlashSql(url))} end, false)`;
}

/** A number the predicate compares: a JSON number, or (numericText) a string that reads as one. */
function numberSql(p: Predicate, v: ValueSql): string {
  if (!v.num) return "null";
  if (!p.numericText) return v.num();
  return `(case when ${v.jsonType!()} = 'VARCHAR' and trim(${v.text}) <> '' then try_cast(trim(${v.text}) as double) else ${v.num()} end)`;
}

/** One predicate over what it reads; text matches ignore case except `is`. */
function compile(q: EngineQuery, p: Predicate, v: ValueSql): string {
  const { text } = v;
  const like = (pattern: string) => `coalesce(${text} ilike ${q.v(pattern)} escape '\\', false)`;
  const compare = (op: string) => `coalesce(${numberSql(p, v)} ${op} ${q.v(p.num)}, false)`;
  switch (p.op) {
    case "set":
      return `(${text} is not null)`;
    case "not_set":
      return `(${text} is null)`;
    case "gt":
      return compare(">");
    case "gte":
      return compare(">=");
    case "lt":
      return compare("<");
    case "lte":
      return compare("<=");
    case "contains":
    case "not_contains": {
      const strings = p.stringsOnly && v.jsonType ? `${v.jsonType()} = 'VARCHAR' and ` : "";
      const hit = `coalesce(${strings}${like(`%${likeEscape(p.values[0]!)}%`)}, false)`;
      return p.op === "contains" ? hit : `(not ${hit})`;
    }
    case "matches":
      return `coalesce(regexp_full_match(${text}, ${q.v(globToRegex(p.values[0]!, true))}), false)`;
    case "url":
      return urlSql(q, p.values[0]!, text);
    case "is":
    case "is_not": {
      const parts: string[] = [];
      if (p.values.length > 0) parts.push(`${text} in ${q.list(p.values)}`);
      if (p.absent) parts.push(`${text} is null`);
      if (p.nullValue && v.jsonType) parts.push(`coalesce(${v.jsonType()} = 'NULL', false)`);
      const any = parts.length === 0 ? "false" : `coalesce((${parts.join(" or ")}), false)`;
      return p.op === "is" ? any : `(not ${any})`;
    }
  }
}

/** One predicate about an event, over the engine's `events` under `alias`. */
export function predicateSql(q: EngineQuery, p: Predicate, alias = "e"): string {
  if (p.field === "data") return compile(q, p, jsonValue(q, `${alias}.data`, p.path ?? []));
  if (p.field === "type" || p.field === "url") return compile(q, p, { text: `${alias}.${p.field}` });
  if (p.field === "page") return compile(q, p, { text: pageOfSql(`${alias}.url`) });
  throw new Error(`not an event field: ${p.field}`);
}

/** Every predicate about an event, over the engine's `events` under `alias`; null when none. */
export function predicatesSql(q: EngineQuery, preds: readonly Predicate[], alias = "e"): string | null {
  return preds.length === 0 ? null : preds.map((p) => predicateSql(q, p, alias)).join(" and ");
}

/** The event conditions of a filter over the engine's `events` under `alias`; null when there are none. */
export function eventConditions(q: EngineQuery, conds: Condition[], alias = "e"): string | null {
  return predicatesSql(
    q,
    conds.filter((c) => c.level === "event"),
    alias,
  );
}

/**
 * A URL's page: without its query or fragment (the web view's pages, the filter key
 * `page_no_query`). Dot-all, as the row store's cut at the first `?` or `#` (filter.ts).
 * (DuckDB and ClickHouse: regexp_replace / replaceRegexpOne, both RE2.)
 */
export const pageOfSql = (url: string) => `regexp_replace(${url}, '(?s)[?#].*$', '')`;

/**
 * A query parameter of a URL, decoded ('+' a space), trimmed; null when absent or empty. DuckDB's
 * url_decode refuses bytes that are not UTF-8, so `try` keeps the raw text then (ClickHouse:
 * extractURLParameter and decodeURLComponent, which never fail). `name` is one of a fixed list,
 * never a caller's. A URL without `name=` has no such parameter: the plain substring test spares
 * most URLs the expression and its row-at-a-time `try`.
 */
export const urlParamSql = (url: string, name: string) => {
  const raw = `regexp_extract(${url}, '[?&]${name}=([^&#]*)', 1)`;
  return `(case when position('${name}=' in ${url}) > 0 then nullif(trim(coalesce(try(url_decode(replace(${raw}, '+', ' '))), ${raw})), '') end)`;
};

/**
 * The session keys read from its landing URL's tags (filter.ts), as the web view reads them. Each
 * needs the session's id as `session_id` under the alias.
 */
const LANDING_TAGS = new Set<string>(LANDING_TAG_KEYS);

/**
 * A tag of the landing URL of the session `session` (an id column): its first web event's URL, as
 * the web view's visits and attribution by medium read it. Correlated: DuckDB joins it once per
 * query, for the sessions the rest selects (ClickHouse, without correlated subqueries: a join on
 * the landing URLs, as attribution's `land`). The tag is read inside: DuckDB's `try` takes no
 * subquery.
 */
const landingTagSql = (session: string, tag: string) =>
  `(select ${urlParamSql("x.u", tag)} from (select arg_min(lu.url, lu.ts) as u from events lu
    where lu.session_id = ${session} and not lu.is_bot and not lu.is_server) x)`;

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

/**
 * The session conditions over the engine's `sessions` columns under `alias` (or a row with the
 * same names: a person's first touch); null when none.
 */
export function sessionConditions(q: EngineQuery, conds: Condition[], alias = "s"): string | null {
  const list = conds.filter((c) => c.level === "session");
  if (list.length === 0) return null;
  return list
    .map((c) => {
      if (LANDING_TAGS.has(c.field))
        return compile(q, c, { text: landingTagSql(`${alias}.session_id`, c.field) });
      if (!SESSION_COLUMN.has(c.field)) throw new Error(`not a session key: ${c.field}`);
      return compile(q, c, { text: `${alias}.${c.field}` });
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
