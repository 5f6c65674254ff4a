import { constants } from "node:zlib";
import compress from "@fastify/compress";
import type { FastifyInstance } from "fastify";
import helmet from "helmet";

/** One year, as browsers' preload lists expect. */
const HSTS = "max-age=31536000; includeSubDomains";

/**
 * Security headers on every response (helmet): nosniff, Referrer-Policy, X-Frame-Options and, for
 * the JSON API, a CSP that allows nothing and no framing. Pages that are HTML (the dashboard,
 * /docs, the email preview frame) set their own CSP, which replaces this one.
 * Cross-Origin-Resource-Policy is cross-origin: customers' pages load the snippet and call the
 * public endpoints from their own origins (CORS still governs who may read API answers).
 * HSTS only when the request came over HTTPS (directly or through a proxy's X-Forwarded-Proto):
 * over plain HTTP the header is meaningless, and on localhost it would pin HTTPS for the name.
 *
 * helmet itself, built once, rather than @fastify/helmet: the plugin rebuilds helmet's middleware
 * (options, CSP string) on every request, which cost the single-event ingest path a quarter of
 * its throughput (bench/README.md, "Security headers and compression").
 */
const securityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  crossOriginResourcePolicy: { policy: "cross-origin" },
  strictTransportSecurity: false,
  referrerPolicy: { policy: "strict-origin-when-cross-origin" },
});

/**
 * Routes marked `config.hotPath` (event ingest: tens of thousands of tiny JSON answers a second to
 * beacons) get nosniff alone: the full set of headers cost that path 17% of its throughput, and
 * framing, referrer and CSP headers mean nothing on an answer no page renders.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  app.addHook("onRequest", (req, reply, done) => {
    if (req.routeOptions.config?.hotPath) {
      reply.raw.setHeader("x-content-type-options", "nosniff");
      return done();
    }
    securityHeaders(req.raw, reply.raw, (err?: unknown) => {
      if (req.protocol === "https") reply.raw.setHeader("strict-transport-security", HSTS);
      done(err as Error | undefined);
    });
  });
}

/**
 * Response compression (@fastify/compress): brotli or gzip by Accept-Encoding, with
 * `Vary: Accept-Encoding`, for answers over 1 KB. Brotli at quality 5: close to the best ratio for
 * JSON and scripts at a fraction of quality 11's time (it runs per response). Answers that already
 * carry a Content-Encoding (the dashboard's precompressed /assets) pass through untouched. Request
 * bodies are not decompressed here: POST /api/events decodes its own gzip under its body limit.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    threshold: 1024,
    encodings: ["br", "gzip"],
    globalDecompression: false,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } },
  });
}
