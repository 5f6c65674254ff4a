import { createHash, randomBytes } from "node:crypto";
import type { Config } from "../../config.js";
import { hmacSha256, safeEqual } from "../../platform/crypto.js";
import { AppError } from "../../platform/errors.js";
import { type HttpClient, PlatformError } from "./http.js";
import {
  type ConnectorType,
  type Credentials,
  type Hosts,
  NeedsReauth,
  type PlatformAdapter,
  type PlatformContext,
  type TokenSet,
} from "./types.js";

export const STATE_TTL_MS = 10 * 60_000;

export interface StatePayload {
  /** nonce: primary key of the single-use row */
  n: string;
  w: string;
  p: string;
  u: string;
  t: ConnectorType;
  /** expiry, epoch ms */
  e: number;
}

/** `state` = base64url(JSON payload) "." base64url(HMAC-SHA256(payload)). */
export function signState(key: Buffer, payload: StatePayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${body}.${hmacSha256(key, body).toString("base64url")}`;
}

export type StateCheck = { ok: true; payload: StatePayload } | { ok: false; code: string };

export function verifyState(key: Buffer, state: string | undefined, now = Date.now()): StateCheck {
  if (!state || state.length > 2000) return { ok: false, code: "invalid_state" };
  const [body, sig] = state.split(".");
  if (!body || !sig || !safeEqual(sig, hmacSha256(key, body).toString("base64url"))) {
    return { ok: false, code: "invalid_state" };
  }
  let payload: StatePayload;
  try {
    payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as StatePayload;
  } catch {
    return { ok: false, code: "invalid_state" };
  }
  if (typeof payload.e !== "number" || payload.e < now) return { ok: false, code: "expired_state" };
  return { ok: true, payload };
}

/** RFC 7636 S256: base64url(SHA-256(verifier)). */
export const pkceChallenge = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString("base64url");
  return { verifier, challenge: pkceChallenge(verifier) };
}

export interface ClientConfig {
  clientId: string;
  clientSecret: string;
}

/** The platform's OAuth client from config, or a 400 that says which variables to set. */
export function clientConfig(config: Config, type: ConnectorType): ClientConfig {
  const c = config.platforms[type.toUpperCase()];
  if (!c?.clientId || !c.clientSecret) {
    const env = type.toUpperCase();
    throw new AppError(
      "VALIDATION_ERROR",
      `${type} OAuth is not configured on this server: set ${env}_CLIENT_ID and ${env}_CLIENT_SECRET`,
    );
  }
  return { clientId: c.clientId, clientSecret: c.clientSecret };
}

export function optionalClient(config: Config, type: ConnectorType): ClientConfig | undefined {
  const c = config.platforms[type.toUpperCase()];
  return c?.clientId && c.clientSecret ? { clientId: c.clientId, clientSecret: c.clientSecret } : undefined;
}

/** A configured base URL replaces every default host of the platform (fakes, proxies, sandboxes). */
export function resolveHosts(adapter: PlatformAdapter, config: Config): Hosts {
  const base = config.platforms[adapter.type.toUpperCase()]?.baseUrl?.replace(/\/$/, "");
  if (!base) return adapter.hosts;
  return Object.fromEntries(Object.keys(adapter.hosts).map((k) => [k, base]));
}

export function authorizeUrl(
  adapter: PlatformAdapter,
  hosts: Hosts,
  client: ClientConfig,
  redirectUri: string,
  state: string,
  challenge: string | undefined,
): string {
  const spec = adapter.oauth!;
  const url = new URL(spec.authorize.path, hosts[spec.authorize.host]);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", client.clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("scope", spec.scopes.join(spec.scopeSeparator ?? " "));
  url.searchParams.set("state", state);
  if (challenge) {
    url.searchParams.set("code_challenge", challenge);
    url.searchParams.set("code_challenge_method", "S256");
  }
  for (const [k, v] of Object.entries(spec.extraParams ?? {})) url.searchParams.set(k, v);
  return url.toString();
}

interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
}

export function toTokenSet(r: TokenResponse, now = Date.now()): TokenSet {
  if (!r || typeof r.access_token !== "string")
    throw new PlatformError(502, "token response without access_token");
  return {
    accessToken: r.access_token,
    refreshToken: r.refresh_token,
    expiresAt: r.expires_in ? now + Number(r.expires_in) * 1000 : undefined,
  };
}

/** OAuth 2.0 token endpoint call (authorization_code or refresh_token grant). */
export async function tokenRequest(
  http: HttpClient,
  adapter: PlatformAdapter,
  hosts: Hosts,
  client: ClientConfig,
  form: Record<string, string | undefined>,
): Promise<TokenSet> {
  const spec = adapter.oauth!;
  const url = new URL(spec.token.path, hosts[spec.token.host]).toString();
  const body =
    spec.clientAuth === "body"
      ? { ...form, client_id: client.clientId, client_secret: client.clientSecret }
      : form;
  const res = await http.request<TokenResponse>(url, {
    method: "POST",
    form: body,
    basic: spec.clientAuth === "basic" ? { user: client.clientId, password: client.clientSecret } : undefined,
  });
  return toTokenSet(res);
}

/**
 * Builds the context adapters call the platform with. Tokens are refreshed a minute before expiry
 * and once after a 401; every refresh is persisted at once, because rotating refresh tokens
 * (QuickBooks) invalidate the previous one.
 */
export function platformContext(opts: {
  adapter: PlatformAdapter;
  config: Config;
  http: HttpClient;
  credentials: Credentials;
  persist: (c: Credentials) => Promise<void>;
}): PlatformContext {
  const { adapter, config, http } = opts;
  const hosts = resolveHosts(adapter, config);
  const creds = opts.credentials;
  const ctx: PlatformContext = {
    http,
    hosts,
    credentials: creds,
    client: optionalClient(config, adapter.type),
    developerToken: config.platforms[adapter.type.toUpperCase()]?.developerToken,
    now: Date.now(),
    async withToken(fn) {
      if (creds.apiKey) {
        try {
          return await fn(creds.apiKey);
        } catch (err) {
          if (err instanceof PlatformError && err.status === 401) throw new NeedsReauth(err.platformMessage);
          throw err;
        }
      }
      if (creds.expiresAt && creds.expiresAt - 60_000 < Date.now()) await refresh();
      try {
        return await fn(creds.accessToken!);
      } catch (err) {
        if (!(err instanceof PlatformError) || err.status !== 401) throw err;
        if (!creds.refreshToken && !adapter.refresh) throw new NeedsReauth(err.platformMessage);
        await refresh();
        try {
          return await fn(creds.accessToken!);
        } catch (again) {
          if (again instanceof PlatformError && again.status === 401)
            throw new NeedsReauth(again.platformMessage);
          throw again;
        }
      }
    },
  };
  async function refresh(): Promise<void> {
    let next: TokenSet;
    try {
      if (adapter.refresh) next = await adapter.refresh(ctx);
      else {
        if (!creds.refreshToken)
          throw new NeedsReauth("access token expired and no refresh token was granted");
        next = await tokenRequest(http, adapter, hosts, clientConfig(config, adapter.type), {
          grant_type: "refresh_token",
          refresh_token: creds.refreshToken,
        });
      }
    } catch (err) {
      if (err instanceof PlatformError && err.status >= 400 && err.status < 500) {
        throw new NeedsReauth(`token refresh refused: ${err.platformMessage}`);
      }
      if (err instanceof AppError) throw new NeedsReauth(err.message);
      throw err;
    }
    creds.accessToken = next.accessToken;
    if (next.refreshToken) creds.refreshToken = next.refreshToken;
    creds.expiresAt = next.expiresAt;
    await opts.persist(creds);
  }
  return ctx;
}
