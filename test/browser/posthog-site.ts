import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Harness, startHarness } from "./harness.js";

/** posthog-js's full array bundle, as a site ships it (served by the site: nothing from PostHog's CDN). */
const BUNDLE = path.join(
  path.dirname(createRequire(import.meta.url).resolve("posthog-js/package.json")),
  "dist/array.full.js",
);

/**
 * A site that serves posthog-js at /posthog.js and, at /, a page that loads it and runs `script`
 * (given the harness: the API's address and the project's public key) and shows `body`. Anything
 * else (favicon.ico and the like) is 204, so the console shows only the library's errors.
 */
export async function startPostHogSite(
  script: (harness: Harness) => string,
  body = "<h1>Shop</h1>",
): Promise<Harness> {
  const bundle = readFileSync(BUNDLE);
  return startHarness((req, res, harness) => {
    const url = new URL(req.url ?? "/", "http://site");
    if (url.pathname === "/posthog.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
      return;
    }
    if (url.pathname !== "/") {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><html><head>
      <script src="/posthog.js"></script>
      <script>${script(harness)}</script></head><body>${body}</body></html>`);
  });
}

/** posthog-js as docs/posthog.md sets it up, pointed at Lift by `api_host` and the public key. */
export const postHogInit = (harness: Harness) => `posthog.init("${harness.tenant.publicKey}", {
          api_host: "${harness.api}",
          person_profiles: "identified_only",
          request_batching: false,
          // Chromium driven by playwright says navigator.webdriver; posthog-js drops such events.
          opt_out_useragent_filter: true,
        });`;
