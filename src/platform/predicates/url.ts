import { memoize } from "../cache.js";
import { compileGlob, type Glob } from "../glob.js";

/**
 * `*` matches any run of characters (slashes included); everything else is literal, compared
 * case-insensitively. Anchored. Linear in pattern and URL (platform/glob.ts): the pattern runs on
 * every ingested event, and anyone with a page's public key chooses the URL.
 */
const compiledGlob = memoize(
  5000,
  (pattern: string): Glob => compileGlob(pattern, { caseInsensitive: true }),
);

export const trimSlash = (s: string) => (s.length > 1 && s.endsWith("/") ? s.slice(0, -1) : s);

/** How a URL pattern is applied: to the path, to the whole URL, or to host and path. */
export type UrlPatternKind = "path" | "whole" | "host";
export const urlPatternKind = (pattern: string): UrlPatternKind =>
  pattern.startsWith("/") ? "path" : /^[a-z][a-z0-9+.-]*:\/\//i.test(pattern) ? "whole" : "host";

/**
 * A pattern starting with "/" is matched against the URL's path (with or without the query);
 * a pattern with a scheme against the whole URL; any other against host + path. A trailing
 * slash is not significant. Text that is no URL is matched whole.
 */
export function urlMatches(pattern: string, url: string): boolean {
  const re = compiledGlob(trimSlash(pattern));
  let u: URL | null = null;
  try {
    u = new URL(url);
  } catch {
    return re.test(trimSlash(url));
  }
  const path = trimSlash(u.pathname);
  const kind = urlPatternKind(pattern);
  if (kind === "path") return re.test(path) || re.test(path + u.search);
  if (kind === "whole") return re.test(trimSlash(url)) || re.test(`${u.origin}${path}`);
  return re.test(u.host + path) || re.test(u.host + path + u.search);
}
