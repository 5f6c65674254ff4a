import type { HttpClient } from "./http.js";

export const CONNECTOR_TYPES = [
  "search_ads",
  "web_analytics",
  "crm",
  "payments",
  "social_ads",
  "professional_network_ads",
  "accounting",
] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];
export const isConnectorType = (v: string): v is ConnectorType =>
  (CONNECTOR_TYPES as readonly string[]).includes(v);

export type ConnectorStatus = "connected" | "syncing" | "error" | "needs_reauth";

/** What is sealed in `connectors.credentials`. */
export interface Credentials {
  accessToken?: string;
  refreshToken?: string;
  /** epoch ms */
  expiresAt?: number;
  apiKey?: string;
  /** Platform ids learned at connect time (customer id, property, realm, ad account). */
  extra?: Record<string, string>;
}

export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: number;
}

/** One day of one campaign (or channel, or P&L line) as stored in `connector_daily`. */
export interface DailyRow {
  campaignId: string;
  campaignName: string;
  day: string;
  spend?: number;
  impressions?: number;
  clicks?: number;
  conversions?: number;
  revenue?: number;
  sessions?: number;
}

/** A revenue item that becomes a `$revenue` event (negative for refunds). */
export interface RevenueItem {
  externalId: string;
  amount: number;
  currency: string;
  occurredAt: number;
  email?: string;
}

export interface LeadItem {
  email: string;
  name?: string;
  externalId: string;
}

export interface SyncResult {
  rows: DailyRow[];
  revenue?: RevenueItem[];
  leads?: LeadItem[];
  cursor: Record<string, unknown>;
  summary?: Record<string, number>;
}

/** Resolved base URLs of one platform: the defaults, or all of them replaced by the configured base. */
export type Hosts = Record<string, string>;

export interface PlatformContext {
  http: HttpClient;
  hosts: Hosts;
  credentials: Credentials;
  /** The platform's OAuth client, when configured (revoke and token calls need it). */
  client?: { clientId: string; clientSecret: string };
  /** A platform-issued developer token from config (Google Ads). */
  developerToken?: string;
  now: number;
  /** Calls `fn` with a fresh access token; refreshes before expiry and once on a 401. */
  withToken<T>(fn: (token: string) => Promise<T>): Promise<T>;
}

export interface SyncContext extends PlatformContext {
  cursor: Record<string, unknown>;
}

export interface OAuthSpec {
  authorize: { host: string; path: string };
  token: { host: string; path: string };
  scopes: string[];
  pkce: boolean;
  /** Where the client authenticates at the token endpoint. */
  clientAuth: "body" | "basic";
  extraParams?: Record<string, string>;
  scopeSeparator?: string;
}

export interface PlatformAdapter {
  type: ConnectorType;
  /** Default base URLs by role (auth, token, api…); a configured baseUrl replaces them all. */
  hosts: Hosts;
  oauth?: OAuthSpec;
  /** API-key style credentials for POST /api/connectors; returns the normalized set or an error. */
  apiCredentials?: (input: Record<string, unknown>) => { credentials: Credentials } | { error: string };
  /** Custom code exchange (Meta uses GET with a query); default is the OAuth 2.0 form POST. */
  exchangeCode?: (ctx: PlatformContext, code: string, redirectUri: string) => Promise<TokenSet>;
  /** Custom refresh; default is grant_type=refresh_token. Undefined refresh token → needs reauth. */
  refresh?: (ctx: PlatformContext) => Promise<TokenSet>;
  /**
   * Cheap call that proves the credentials work and names the account. May add platform ids to
   * `extra` (QuickBooks passes realmId from the callback query in `callbackParams`).
   */
  fetchAccount(
    ctx: PlatformContext,
    callbackParams?: Record<string, string>,
  ): Promise<{ id: string; name: string; extra?: Record<string, string> }>;
  sync(ctx: SyncContext): Promise<SyncResult>;
  /** Revokes the grant at the platform, where the platform has a revoke endpoint. */
  revoke?(ctx: PlatformContext): Promise<void>;
}

/** Thrown when the grant is gone (refresh refused, no refresh token): the user must reconnect. */
export class NeedsReauth extends Error {}

export const DAY_MS = 86_400_000;
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const num = (v: unknown): number => {
  const n = typeof v === "number" ? v : Number(v ?? 0);
  return Number.isFinite(n) ? n : 0;
};
