import { createHash, randomBytes } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small local HTTP server that plays one platform: the handlers in test/fakes/<platform>.ts
 * speak the subset of its documented API our adapters use. Shared here: OAuth codes and tokens
 * (with PKCE check, expiry and rotation), injected 429s with Retry-After, and a request log.
 */
export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
  json: any;
  form: URLSearchParams;
}
export type Handler = (req: FakeRequest, res: FakeResponse) => void | Promise<void>;
export interface FakeResponse {
  send(status: number, body: unknown, headers?: Record<string, string>): void;
}
interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

const token = (prefix: string) => `${prefix}${randomBytes(18).toString("base64url")}`;

export class FakePlatform {
  server!: Server;
  baseUrl = "";
  readonly log: FakeRequest[] = [];
  private routes: Route[] = [];
  /** access token → expiry (epoch ms) */
  readonly accessTokens = new Map<string, number>();
  readonly refreshTokens = new Set<string>();
  readonly codes = new Map<string, { challenge?: string; redirectUri?: string }>();
  readonly revoked: string[] = [];
  /** Answer the next N API calls (not OAuth) with 429 and this Retry-After. */
  rateLimitNext = 0;
  retryAfter = "1";
  /** Answer API calls with this error until cleared (a failing platform). */
  failWith: { status: number; body: unknown } | null = null;
  accessTtlSeconds = 3600;
  /** Each refresh issues a new refresh token and invalidates the old one (Intuit does this). */
  rotateRefreshTokens = false;
  refreshCount = 0;

  constructor(
    readonly name: string,
    /** Body of a 401 for a bad or expired token, in the platform's format. */
    readonly unauthorizedBody: unknown,
  ) {}

  on(method: string, pattern: RegExp, handler: Handler): this {
    this.routes.push({ method, pattern, handler });
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", () => r()));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** An authorization code as the consent screen would issue it. */
  issueCode(challenge?: string, redirectUri?: string): string {
    const code = token("code_");
    this.codes.set(code, { challenge, redirectUri });
    return code;
  }

  issueTokens(): { access_token: string; refresh_token: string; expires_in: number; token_type: string } {
    const access = token("at_");
    const refresh = token("rt_");
    this.accessTokens.set(access, Date.now() + this.accessTtlSeconds * 1000);
    this.refreshTokens.add(refresh);
    return {
      access_token: access,
      refresh_token: refresh,
      expires_in: this.accessTtlSeconds,
      token_type: "Bearer",
    };
  }

  /** Makes every issued access token expired (the next API call gets a 401). */
  expireAccessTokens(): void {
    for (const k of this.accessTokens.keys()) this.accessTokens.set(k, 0);
  }

  /** Every request whose path matches, for assertions. */
  calls(pattern: RegExp): FakeRequest[] {
    return this.log.filter((r) => pattern.test(r.path));
  }

  /** Checks `Authorization: Bearer`; answers 401 itself when the token is unknown or expired. */
  authorized(req: FakeRequest, res: FakeResponse, apiKeys: string[] = []): boolean {
    const auth = req.headers.authorization ?? "";
    const t = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    if (apiKeys.includes(t)) return true;
    const exp = this.accessTokens.get(t);
    if (exp !== undefined && exp > Date.now()) return true;
    res.send(401, this.unauthorizedBody);
    return false;
  }

  /** Shared OAuth 2.0 token grant handling; returns an error body or the token response. */
  grant(params: URLSearchParams): { status: number; body: unknown } {
    const grantType = params.get("grant_type");
    if (grantType === "authorization_code") {
      const entry = this.codes.get(params.get("code") ?? "");
      if (!entry) return { status: 400, body: { error: "invalid_grant", error_description: "Bad code" } };
      this.codes.delete(params.get("code")!);
      if (entry.challenge) {
        const verifier = params.get("code_verifier") ?? "";
        const computed = createHash("sha256").update(verifier).digest("base64url");
        if (computed !== entry.challenge) {
          return {
            status: 400,
            body: { error: "invalid_grant", error_description: "PKCE verification failed" },
          };
        }
      }
      return { status: 200, body: this.issueTokens() };
    }
    if (grantType === "refresh_token") {
      const rt = params.get("refresh_token") ?? "";
      if (!this.refreshTokens.has(rt)) {
        return {
          status: 400,
          body: { error: "invalid_grant", error_description: "Token has been expired or revoked." },
        };
      }
      this.refreshCount++;
      const issued = this.issueTokens();
      if (this.rotateRefreshTokens) {
        this.refreshTokens.delete(rt);
        return { status: 200, body: issued };
      }
      this.refreshTokens.delete(issued.refresh_token);
      const { refresh_token: _drop, ...rest } = issued;
      return { status: 200, body: rest };
    }
    return { status: 400, body: { error: "unsupported_grant_type" } };
  }

  private async handle(req: IncomingMessage, raw: ServerResponse) {
    const url = new URL(req.url ?? "/", this.baseUrl);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const fr: FakeRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json,
      form: new URLSearchParams(body),
    };
    this.log.push(fr);
    const res: FakeResponse = {
      send(status, b, headers = {}) {
        raw.writeHead(status, { "content-type": "application/json", ...headers });
        raw.end(b === undefined ? "" : JSON.stringify(b));
      },
    };
    const isOAuth = /oauth|token|revoke|authorization|connect\/oauth2|dialog/.test(fr.path);
    if (!isOAuth && this.rateLimitNext > 0) {
      this.rateLimitNext--;
      return res.send(429, { error: { message: "Too many requests" } }, { "retry-after": this.retryAfter });
    }
    if (!isOAuth && this.failWith) return res.send(this.failWith.status, this.failWith.body);
    const route = this.routes.find((r) => r.method === fr.method && r.pattern.test(fr.path));
    if (!route)
      return res.send(404, { error: { message: `fake ${this.name}: no route ${fr.method} ${fr.path}` } });
    try {
      await route.handler(fr, res);
    } catch (err) {
      res.send(500, { error: { message: String(err) } });
    }
  }
}

/** "YYYY-MM-DD", `n` days before today (UTC). */
export const dayAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** Follows the consent redirect the way a browser would after the user clicks "Allow". */
export function consent(fake: FakePlatform, authorizeUrl: string): { code: string; state: string } {
  const u = new URL(authorizeUrl);
  const code = fake.issueCode(
    u.searchParams.get("code_challenge") ?? undefined,
    u.searchParams.get("redirect_uri") ?? undefined,
  );
  return { code, state: u.searchParams.get("state") ?? "" };
}
