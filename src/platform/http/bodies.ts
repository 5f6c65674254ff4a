import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.js";
import { controlCharInUrlFields, mayHaveEncodedControlChar } from "../control-chars.js";
import { parseJsonBody } from "../json-body.js";
import { createAjv } from "../validation.js";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** How request input is read and checked: JSON only (kept raw too), compiled schema validation. */
export function registerBodies(app: FastifyInstance): void {
  // Bodies are JSON and validated as typed (no "10" → 10); query strings and params are text and coerced.
  const bodyAjv = createAjv(false);
  const textAjv = createAjv("array");
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === "body" ? bodyAjv : textAjv).compile(schema),
  );
  app.decorateRequest("rawBody", undefined);

  // JSON bodies are kept raw as well: incoming webhooks verify signatures over the exact bytes.
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) =>
    parseJson(req, body as string, done),
  );
  app.addContentTypeParser("text/plain", { parseAs: "string" }, (req, body, done) =>
    parseJson(req, body as string, done),
  );

  app.addHook("preValidation", async (req) => {
    // Control characters in the query string or path are refused on every route, before its own
    // schema runs (src/platform/control-chars.ts says why).
    if (mayHaveEncodedControlChar(req.url)) {
      const message = controlCharInUrlFields({
        params: req.params as Record<string, unknown>,
        querystring: req.query as Record<string, unknown>,
      });
      if (message) throw new AppError("VALIDATION_ERROR", message);
    }
    // Mutating requests with a body must be JSON: this is also the CSRF defence for cookie sessions,
    // since a cross-site form cannot send application/json without a CORS preflight.
    if (!MUTATING.has(req.method)) return;
    const hasBody =
      Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
    if (!hasBody) return;
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/json") return;
    if (type === "text/plain" && req.routeOptions.config?.allowTextPlain) return;
    if (req.routeOptions.config?.jsonWhateverType) return;
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json");
  });
}

function parseJson(req: { rawBody?: string }, body: string, done: (e: Error | null, v?: unknown) => void) {
  req.rawBody = body;
  if (body.length === 0) return done(null, undefined);
  try {
    done(null, parseJsonBody(body));
  } catch (err) {
    done(err as Error);
  }
}

/**
 * Reads every body of the plugin it is called in as JSON, whatever its Content-Type (or none), for
 * routes that also set `config.jsonWhateverType`. Segment's and RudderStack's servers read their
 * API this way, and RudderStack's Node SDK labels its gzipped JSON as a form. Only for routes that
 * never take a cookie session: the Content-Type check is the CSRF defence of the others.
 */
export function readAnyBodyAsJson(app: FastifyInstance): void {
  app.addContentTypeParser("*", { parseAs: "string" }, (req, body, done) =>
    parseJson(req, body as string, done),
  );
}
