import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { LiftModule } from "../../platform/module.js";

/**
 * The built dashboard (web/, `npm run build`): index.html plus content-hashed files under assets/.
 * `LIFT_WEB_DIST` points elsewhere (a deployment's own build, tests of a missing build).
 */
export const WEB_DIST = fileURLToPath(new URL("../../../web/dist/", import.meta.url));

/** Paths the API owns: an unknown one stays a JSON 404, never the app shell. */
const API_PATHS = /^\/(api|assets|docs|openapi\.json|healthz|metrics)(\/|$|\?)/;

// The app needs no inline script or style: scripts and styles come from /assets only; data from
// the API on the same origin. React and uPlot set styles through the CSSOM, which CSP allows.
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lift — dashboard not built</title></head>
<body><main><h1>The dashboard is not built yet</h1>
<p>The API is running. Build the dashboard with <code>npm run build</code>
(<code>npm start</code> builds it when it is missing), then reload this page.</p>
<p>API reference: <a href="/docs">/docs</a></p></main></body></html>`;

async function sendShell(reply: FastifyReply, dist: string) {
  reply
    .header("content-security-policy", DASHBOARD_CSP)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "same-origin")
    // The shell names the current hashed assets: always revalidated, never cached stale.
    .header("cache-control", "no-cache")
    .type("text/html; charset=utf-8");
  try {
    return reply.send(await readFile(path.join(dist, "index.html"), "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    return reply.code(503).send(NOT_BUILT);
  }
}

const acceptsHtml = (req: FastifyRequest) => (req.headers.accept ?? "").includes("text/html");

export const dashboardModule: LiftModule = {
  name: "dashboard",
  async register(app) {
    const dist = process.env.LIFT_WEB_DIST ?? WEB_DIST;
    // Hashed file names change with their content, so they are cached for a year; the build writes
    // .br and .gz beside each, and @fastify/static picks one by Accept-Encoding (with Vary).
    await app.register(fastifyStatic, {
      root: path.join(dist, "assets"),
      prefix: "/assets/",
      preCompressed: true,
      immutable: true,
      maxAge: 365 * 24 * 3600 * 1000,
      index: false,
      decorateReply: false,
      schemaHide: true,
    });

    app.get("/", { schema: { hide: true } }, async (_req, reply) => sendShell(reply, dist));
    // Client-side routes (deep links such as /experiments/abc): any other GET for a page gets the
    // shell, and the app shows its own not-found page. API paths and non-HTML requests keep the
    // JSON 404 of the app's not-found handler.
    app.setPageFallback((req, reply) =>
      API_PATHS.test(req.url) || !acceptsHtml(req) ? undefined : sendShell(reply, dist),
    );
  },
};
