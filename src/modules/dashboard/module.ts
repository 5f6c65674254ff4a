import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import type { LiftModule } from "../index.js";

// One static page: sign-in, overview and integrations (where OAuth callbacks land). It calls the
// public API with the session cookie, so it holds no logic of its own.
const page = readFileSync(new URL("./page.html", import.meta.url), "utf8");
const etag = `"${createHash("sha256").update(page).digest("base64url").slice(0, 16)}"`;

export const dashboardModule: LiftModule = {
  name: "dashboard",
  async register(app) {
    for (const path of ["/", "/integrations"]) {
      app.get(path, { schema: { hide: true } }, async (req, reply) => {
        reply.header("etag", etag).header("cache-control", "no-cache");
        if (req.headers["if-none-match"] === etag) return reply.code(304).send();
        return reply
          .type("text/html; charset=utf-8")
          .header(
            "content-security-policy",
            "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; frame-ancestors 'none'",
          )
          .send(page);
      });
    }
  },
};
