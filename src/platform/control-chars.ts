/**
 * Control characters (C0, U+0000–U+001F, and DEL, U+007F) in request text that is not a JSON body:
 * query strings, path parameters, and JSON carried in a query parameter (`?filter=`). None of
 * Lift's parameters means one, and they reach places that break on them: PostgreSQL text cannot
 * hold U+0000, SQLite refuses it in a JSON path, Node refuses CR and LF in headers. Refusing them
 * all, tabs and newlines included, keeps one rule instead of a list of exceptions.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Percent-encodings of a control character (`%00`–`%1F`, `%7F`). Raw control bytes never reach a
 * route (the HTTP parser refuses them in the request line), so a URL without one of these needs no
 * further look.
 */
const ENCODED_CONTROL = /%(?:[01][0-9a-f]|7f)/i;

export const hasControlChar = (text: string): boolean => CONTROL.test(text);

export const mayHaveEncodedControlChar = (url: string): boolean => ENCODED_CONTROL.test(url);

/** `\u0001` for U+0001: how a message shows a character that would not print. */
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Text shown in a message with its control characters escaped. */
export const showText = (text: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
  text.replace(/[\u0000-\u001f\u007f]/g, escaped);

/** The 400 message for `field` holding the control character found in `text`. */
export function controlCharMessage(field: string, text: string): string {
  const c = CONTROL.exec(text)?.[0] ?? "\u0000";
  // NUL keeps its own wording: it is the one PostgreSQL cannot store, and clients match on it.
  if (c === "\u0000") return `${field} must not contain NUL (\\u0000) characters`;
  return `${field} must not contain control characters (${escaped(c)})`;
}

/**
 * The first string of a parsed JSON value (object keys included) holding a control character:
 * its path, e.g. `[0].key` ("" for the value itself) and the string. Looks no deeper than `depth`
 * levels; whatever lies deeper is refused by the value's schema.
 */
export function controlCharIn(value: unknown, depth = 16): { path: string; text: string } | undefined {
  if (typeof value === "string") return CONTROL.test(value) ? { path: "", text: value } : undefined;
  if (value === null || typeof value !== "object" || depth <= 0) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = controlCharIn(value[i], depth - 1);
      if (found) return { path: `[${i}]${found.path}`, text: found.text };
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    if (CONTROL.test(key)) return { path: "", text: key };
    const found = controlCharIn(v, depth - 1);
    if (found) return { path: `.${key}${found.path}`, text: found.text };
  }
  return undefined;
}

/**
 * Query values and names and path parameters with a control character: the 400 message naming
 * the first one (`querystring.limit`, `params.id`, a query parameter's name), else undefined.
 */
export function controlCharInUrlFields(
  fields: Record<string, Record<string, unknown> | undefined>,
): string | undefined {
  for (const [where, values] of Object.entries(fields)) {
    for (const [name, v] of Object.entries(values ?? {})) {
      if (CONTROL.test(name)) return controlCharMessage(`${where} parameter name "${showText(name)}"`, name);
      const bad = [v].flat().find((x): x is string => typeof x === "string" && CONTROL.test(x));
      if (bad !== undefined) return controlCharMessage(`${where}.${name}`, bad);
    }
  }
  return undefined;
}

/**
 * A JSON Schema `pattern` for an identifier a caller names later in a URL (a visitor's or lead's
 * id): no control characters, which the URL check refuses, so an id stored with one could never be
 * asked for (or erased) again. A single negated class: linear time.
 */
export const NO_CONTROL_CHARS = "^[^\\u0000-\\u001f\\u007f]*$";
