import type { PlatformContext } from "../types.js";

/** Google's OAuth endpoints, shared by Google Ads and GA4 (both support PKCE S256). */
export const GOOGLE_HOSTS = {
  auth: "https://accounts.google.com",
  token: "https://oauth2.googleapis.com",
};
export const googleOAuth = (scope: string) => ({
  authorize: { host: "auth", path: "/o/oauth2/v2/auth" },
  token: { host: "token", path: "/token" },
  scopes: [scope],
  pkce: true,
  clientAuth: "body" as const,
  // offline + consent: Google only returns a refresh token when asked this way.
  extraParams: { access_type: "offline", prompt: "consent" },
});

/** https://developers.google.com/identity/protocols/oauth2/web-server#tokenrevoke */
export async function revokeGoogle(ctx: PlatformContext): Promise<void> {
  const token = ctx.credentials.refreshToken ?? ctx.credentials.accessToken;
  if (!token) return;
  await ctx.http.request(`${ctx.hosts.token}/revoke`, { method: "POST", form: { token } });
}

/** "YYYY-MM-DD" of `days` ago (UTC). */
export const daysAgo = (now: number, days: number) =>
  new Date(now - days * 86_400_000).toISOString().slice(0, 10);

/** Start of an incremental window: a few days back from the last synced day (late conversions). */
export function windowStart(
  cursor: Record<string, unknown>,
  now: number,
  lookback = 3,
  initial = 89,
): string {
  const last = typeof cursor.lastDay === "string" ? Date.parse(`${cursor.lastDay}T00:00:00Z`) : NaN;
  if (Number.isNaN(last)) return daysAgo(now, initial);
  return daysAgo(last, lookback);
}
