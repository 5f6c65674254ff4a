import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, handleError } from "../errors.js";

/** Answers an unmatched GET, or returns undefined to leave it a 404. */
export type PageFallback = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> | undefined;

/**
 * One error format for every answer, a 503 for requests reaching a closing server, and the
 * not-found handler (with the dashboard's fallback for deep links).
 */
export function registerLifecycle(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => handleError(err, req, reply));
  // A request that reaches a closing server (a busy keep-alive connection) is refused before it
  // does any work, as Fastify's return503OnClosing would, in our format. Callback style: this
  // runs on every request.
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", (_req, _reply, done) => {
    if (closing) done(new AppError("UNAVAILABLE", "the server is shutting down; retry the request"));
    else done();
  });
  // A GET (or HEAD) no route matched may be a page of the dashboard (a deep link): the dashboard module
  // answers those with its app shell. As a fallback rather than a wildcard route, so the router's
  // own answers for API paths (a too-long parameter, no such route) stay as they are.
  let pageFallback: PageFallback | null = null;
  app.decorate("setPageFallback", (fn: PageFallback) => {
    pageFallback = fn;
  });
  app.setNotFoundHandler((req, reply) => {
    const page = req.method === "GET" || req.method === "HEAD" ? pageFallback?.(req, reply) : undefined;
    if (page) return page;
    return handleError(
      new AppError("NOT_FOUND", `route ${req.method} ${req.url.split("?")[0]} not found`),
      req,
      reply,
    );
  });
}
