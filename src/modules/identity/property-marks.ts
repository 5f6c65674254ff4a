/**
 * Which of a lead's (or an anonymous visitor's) properties a browser wrote: the names whose current
 * value came from a public key, kept as a JSON array beside the properties (null when none). The
 * public key is in every page, so its caller is anyone: flag targeting leaves these values out
 * (unless a cohort opts in), while reports count every property. The mark follows the value: a
 * public key's write marks the name, a server's write (secret key, connector, dashboard) of the
 * name clears it, also when the value it sets is the same.
 */

/**
 * Who wrote a change. `server` sets whole values and vouches for them; `partial` is a server
 * writing inside a value that may hold a browser's parts (one group's traits among a lead's
 * `groups`), so that value's mark stays as it was.
 */
export type PropertySource = "browser" | "server" | "partial";

export const parseMarks = (json: string | null): string[] =>
  json === null ? [] : (JSON.parse(json) as string[]);

/**
 * The marks after a write. `written`: the names the write gave a value (set, or filled while
 * missing); `browserNames`: names among them whose values a public key wrote earlier (an anonymous
 * visitor's, joining its lead), marked whoever writes them now.
 */
export function nextMarks(
  json: string | null,
  written: readonly string[],
  source: PropertySource,
  browserNames: ReadonlySet<string> = new Set(),
): string | null {
  if (written.length === 0) return json;
  const marks = new Set(parseMarks(json));
  for (const name of written) {
    if (source === "browser" || browserNames.has(name)) marks.add(name);
    else if (source === "server") marks.delete(name);
  }
  return marks.size === 0 ? null : JSON.stringify([...marks].sort());
}
