import type { FastifyRequest } from "fastify";
import { AppError } from "../errors.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a browser says the request came from another site. `Sec-Fetch-Site` (every current
 * browser) is decisive: only `same-origin` and `none` (typed, bookmarked) are this site's own. Without
 * it, an `Origin` other than the request's own scheme and host is another site's.
 */
export function fromAnotherSite(req: FastifyRequest): boolean {
  const site = req.headers["sec-fetch-site"];
  if (typeof site === "string") return site !== "same-origin" && site !== "none";
  const origin = req.headers.origin;
  if (typeof origin !== "string") return false;
  return origin !== `${req.protocol}://${req.host}`;
}

/**
 * A cookie travels with requests another site starts (SameSite=Lax still sends it on a top-level
 * GET), so a state change on a cookie session must come from this site: POST/PATCH/PUT/DELETE and
 * GETs marked `config.changesState`. API keys are never sent by a browser on its own, so they are
 * not checked.
 */
export function refuseCrossSite(req: FastifyRequest): void {
  const changes = !SAFE_METHODS.has(req.method) || req.routeOptions.config?.changesState === true;
  if (changes && fromAnotherSite(req))
    throw new AppError(
      "FORBIDDEN",
      "a signed-in change must come from Lift's own pages (cross-site request refused)",
    );
}
