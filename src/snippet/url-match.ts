import { compileGlob } from "../platform/glob.js";

/**
 * Glob matching of an experiment's targetUrl against the page URL, with the same rules as
 * conversion goals' urlPattern (goals/matching.ts): `*` matches any run of characters, the rest
 * is literal and case-insensitive; a pattern starting with "/" is matched against the path (with
 * or without the query), a pattern with a scheme against the whole URL, any other against
 * host + path; a trailing slash is not significant. Linear in pattern and URL (platform/glob.ts).
 */
const trimSlash = (s: string) => (s.length > 1 && s.endsWith("/") ? s.slice(0, -1) : s);

export function urlMatches(pattern: string, href: string): boolean {
  const re = compileGlob(trimSlash(pattern), { caseInsensitive: true });
  const u = new URL(href);
  const path = trimSlash(u.pathname);
  const noHash = href.split("#")[0]!;
  if (pattern[0] === "/") return re.test(path) || re.test(path + u.search);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pattern)) return re.test(trimSlash(noHash)) || re.test(u.origin + path);
  return re.test(u.host + path) || re.test(u.host + path + u.search);
}
