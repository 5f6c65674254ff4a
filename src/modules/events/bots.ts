import { createIsbotFromList, isbotPatterns, list } from "isbot";
import { memoize } from "../../platform/cache.js";

/**
 * Default User-Agents of generic HTTP clients. A request with one of them is a server-side
 * integration or a developer trying the API (curl, Node's fetch, Python requests, Go's client …),
 * not a crawler: bot filtering is for crawlers and headless browsers that run the snippet.
 */
export const GENERIC_CLIENT_AGENTS = [
  "curl/8.5.0",
  "Wget/1.21.4",
  "node",
  "undici",
  "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
  "axios/1.7.2",
  "got (https://github.com/sindresorhus/got)",
  "Deno/1.44.0",
  "Bun/1.1.0",
  "python-requests/2.32.3",
  "python-httpx/0.27.0",
  "Python-urllib/3.12",
  "aiohttp/3.9.5",
  "Go-http-client/1.1",
  "Go-http-client/2.0",
  "Java/17.0.2",
  "Apache-HttpClient/4.5.14 (Java/17.0.2)",
  "okhttp/4.12.0",
  "Ruby",
  "Faraday v2.9.0",
  "GuzzleHttp/7",
  "PHP/8.3",
  "libwww-perl/6.72",
  "rust-reqwest/0.12",
  "Dart/3.4 (dart:io)",
  "PostmanRuntime/7.39.0",
  "insomnia/9.2.0",
  "HTTPie/3.2.2",
];

/**
 * isbot's own list minus every pattern that matches a generic HTTP client (isbot's documented way
 * to customise it): crawlers (Googlebot, bingbot …), headless browsers (HeadlessChrome) and audit
 * tools (Lighthouse) keep matching, curl and Node's fetch no longer do.
 */
const genericPatterns = new Set(GENERIC_CLIENT_AGENTS.flatMap((ua) => isbotPatterns(ua)));
const isCrawler = createIsbotFromList(list.filter((pattern) => !genericPatterns.has(pattern)));

// The matcher runs one large regex; user agents repeat, so recent answers are remembered.
const isCrawlerCached = memoize(5000, isCrawler);

/** Whether a User-Agent is a crawler's or a headless browser's (not a generic HTTP client's). */
export function isBotAgent(ua: string | undefined | null): boolean {
  return ua ? isCrawlerCached(ua) : false;
}
