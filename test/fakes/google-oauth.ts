import type { FakePlatform } from "./server.js";

/** Google's token and revoke endpoints (oauth2.googleapis.com). */
export function googleOAuthRoutes(fake: FakePlatform, client: { id: string; secret: string }) {
  fake.on("POST", /^\/token$/, (req, res) => {
    if (req.form.get("client_id") !== client.id || req.form.get("client_secret") !== client.secret) {
      return res.send(401, { error: "invalid_client", error_description: "The OAuth client was not found." });
    }
    const out = fake.grant(req.form);
    res.send(out.status, out.body);
  });
  fake.on("POST", /^\/revoke$/, (req, res) => {
    const t = req.form.get("token") ?? "";
    if (!fake.refreshTokens.has(t) && !fake.accessTokens.has(t))
      return res.send(400, { error: "invalid_token" });
    fake.revoked.push(t);
    fake.refreshTokens.delete(t);
    res.send(200, {});
  });
}

export const GOOGLE_UNAUTHORIZED = {
  error: {
    code: 401,
    message:
      "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    status: "UNAUTHENTICATED",
  },
};
