import { withTransaction } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import { AppError } from "../../platform/errors.js";
import { DEFAULT_HTTP, HttpClient, PlatformError, redactSecrets } from "./http.js";
import {
  STATE_TTL_MS,
  authorizeUrl,
  clientConfig,
  pkcePair,
  platformContext,
  resolveHosts,
  signState,
  tokenRequest,
  verifyState,
} from "./oauth.js";
import { platforms } from "./platforms/index.js";
import { type Connector, getConnector, openCredentials, saveConnection, toConnector } from "./store.js";
import {
  type ConnectorType,
  type Credentials,
  NeedsReauth,
  type TokenSet,
  isConnectorType,
} from "./types.js";
import type { ServiceDeps } from "../../platform/deps.js";

export function httpClient(deps: ServiceDeps): HttpClient {
  return new HttpClient({ ...DEFAULT_HTTP, retryScale: deps.config.retryScale });
}

export const redirectUri = (deps: ServiceDeps, type: string) =>
  `${deps.config.publicUrl}/api/connectors/${type}/callback`;

export async function listConnectors(deps: ServiceDeps, project: ProjectRef): Promise<Connector[]> {
  const rows = await deps.db
    .selectFrom("connectors")
    .selectAll()
    .where("project_id", "=", project.id)
    .orderBy("connected_at", "desc")
    .execute();
  return rows.map(toConnector);
}

/** POST /api/connectors: API-key connectors, verified with a cheap platform call before storing. */
export async function connectWithCredentials(
  deps: ServiceDeps,
  project: ProjectRef,
  type: ConnectorType,
  input: Record<string, unknown> | undefined,
): Promise<Connector> {
  const adapter = platforms[type];
  if (!adapter.apiCredentials) {
    throw new AppError(
      "VALIDATION_ERROR",
      `${type} connects through OAuth: open GET /api/connectors/${type}/auth in the browser`,
    );
  }
  const parsed = adapter.apiCredentials(input ?? {});
  if ("error" in parsed) throw new AppError("VALIDATION_ERROR", parsed.error);
  const creds: Credentials = parsed.credentials;
  const ctx = platformContext({
    adapter,
    config: deps.config,
    http: httpClient(deps),
    credentials: creds,
    persist: async () => {},
  });
  let account: { id: string; name: string; extra?: Record<string, string> };
  try {
    account = await adapter.fetchAccount(ctx);
  } catch (err) {
    const secrets = [creds.apiKey, creds.accessToken];
    if (err instanceof NeedsReauth) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${type} refused the credentials: ${redactSecrets(err.message, secrets)}`,
      );
    }
    if (err instanceof PlatformError && err.status >= 400 && err.status < 500 && err.status !== 429) {
      throw new AppError(
        "VALIDATION_ERROR",
        `${type} refused the credentials: ${redactSecrets(err.platformMessage, secrets)}`,
      );
    }
    if (err instanceof PlatformError) {
      throw new AppError(
        "BAD_GATEWAY",
        `${type} could not be reached: ${redactSecrets(err.platformMessage, secrets)}`,
      );
    }
    throw err;
  }
  if (account.extra) creds.extra = { ...creds.extra, ...account.extra };
  const row = await saveConnection(deps, deps.db, project, type, account, creds);
  return toConnector(row);
}

/** DELETE /api/connectors: revokes at the platform where possible, then forgets the connector. */
export async function disconnect(
  deps: ServiceDeps,
  project: ProjectRef,
  type: ConnectorType,
): Promise<{ id: string; type: string; deleted: true; revoked: boolean }> {
  const row = await getConnector(deps.db, project, type);
  const adapter = platforms[type];
  let revoked = false;
  if (adapter.revoke) {
    const ctx = platformContext({
      adapter,
      config: deps.config,
      http: httpClient(deps),
      credentials: openCredentials(deps, row.credentials),
      persist: async () => {},
    });
    try {
      await adapter.revoke(ctx);
      revoked = true;
    } catch (err) {
      // The user's intent is to disconnect: a platform that refuses the revoke (already revoked,
      // unreachable) does not keep our copy of the credentials alive.
      deps.log.warn({ type, status: (err as PlatformError).status }, "connector revoke failed");
    }
  }
  await withTransaction(deps.db, async (trx) => {
    await trx.deleteFrom("connectors").where("id", "=", row.id).execute();
    await trx
      .deleteFrom("connector_daily")
      .where("project_id", "=", project.id)
      .where("connector_type", "=", type)
      .execute();
  });
  return { id: row.id, type, deleted: true, revoked };
}

/** GET /api/connectors/:type/auth → the consent URL, with a signed single-use state (and PKCE). */
export async function startOAuth(
  deps: ServiceDeps,
  project: ProjectRef,
  starter: { userId: string; sessionId: string },
  type: ConnectorType,
): Promise<string> {
  const { userId } = starter;
  const adapter = platforms[type];
  if (!adapter.oauth) {
    throw new AppError(
      "VALIDATION_ERROR",
      `${type} has no OAuth flow: connect it with POST /api/connectors and API credentials`,
    );
  }
  const client = clientConfig(deps.config, type);
  // Unused states are kept a day past expiry (a late callback then reads "expired", not "invalid").
  await deps.db
    .deleteFrom("connector_oauth_states")
    .where("expires_at", "<", Date.now() - 86_400_000)
    .execute();
  const nonce = newId("ost");
  const pkce = adapter.oauth.pkce ? pkcePair() : undefined;
  const expiresAt = Date.now() + STATE_TTL_MS;
  await deps.db
    .insertInto("connector_oauth_states")
    .values({
      nonce,
      workspace_id: project.workspaceId,
      project_id: project.id,
      user_id: userId,
      session_id: starter.sessionId,
      type,
      code_verifier: pkce ? deps.secrets.encrypt(pkce.verifier) : null,
      expires_at: expiresAt,
      used_at: null,
    })
    .execute();
  const state = signState(deps.secrets.derive("oauth-state"), {
    n: nonce,
    w: project.workspaceId,
    p: project.id,
    u: userId,
    t: type,
    e: expiresAt,
  });
  return authorizeUrl(
    adapter,
    resolveHosts(adapter, deps.config),
    client,
    redirectUri(deps, type),
    state,
    pkce?.challenge,
  );
}

/**
 * Where the callback sends the browser; `?error=<code>` on any failure, with nothing stored. The
 * callback completes only in the browser session that started the flow (`sessionId`, from the
 * request's cookie): a consent link started by someone else and opened by a victim would otherwise
 * store the victim's platform tokens in the starter's project.
 */
export async function completeOAuth(
  deps: ServiceDeps,
  type: string,
  query: Record<string, string | undefined>,
  sessionId: string | null,
): Promise<string> {
  const base = `${deps.config.publicUrl}/integrations`;
  const fail = (code: string) => `${base}?error=${encodeURIComponent(code)}`;
  if (!isConnectorType(type) || !platforms[type].oauth) return fail("unknown_connector");
  const check = verifyState(deps.secrets.derive("oauth-state"), query.state);
  if (!check.ok) return fail(check.code);
  const st = check.payload;
  if (st.t !== type) return fail("invalid_state");
  const started = await deps.db
    .selectFrom("connector_oauth_states")
    .select("session_id")
    .where("nonce", "=", st.n)
    .executeTakeFirst();
  // Checked before the state is claimed, so the flow's own browser can still complete it.
  if (!started || !sessionId || started.session_id !== sessionId) return fail("session_mismatch");
  // Single use: the first callback to mark the row wins; a replay finds it used.
  const claimed = await deps.db
    .updateTable("connector_oauth_states")
    .set({ used_at: Date.now() })
    .where("nonce", "=", st.n)
    .where("used_at", "is", null)
    .where("workspace_id", "=", st.w)
    .where("project_id", "=", st.p)
    .where("user_id", "=", st.u)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return fail("state_used");
  const row = await deps.db
    .selectFrom("connector_oauth_states")
    .selectAll()
    .where("nonce", "=", st.n)
    .executeTakeFirstOrThrow();
  if (query.error) return fail(query.error === "access_denied" ? "access_denied" : "consent_failed");
  if (!query.code) return fail("missing_code");

  const adapter = platforms[type];
  const client = deps.config.platforms[type.toUpperCase()];
  if (!client?.clientId || !client.clientSecret) return fail("not_configured");
  const http = httpClient(deps);
  const creds: Credentials = {};
  const ctx = platformContext({
    adapter,
    config: deps.config,
    http,
    credentials: creds,
    persist: async () => {},
  });
  let tokens: TokenSet;
  try {
    const uri = redirectUri(deps, type);
    tokens = adapter.exchangeCode
      ? await adapter.exchangeCode(ctx, query.code, uri)
      : await tokenRequest(
          http,
          adapter,
          ctx.hosts,
          { clientId: client.clientId, clientSecret: client.clientSecret },
          {
            grant_type: "authorization_code",
            code: query.code,
            redirect_uri: uri,
            code_verifier: row.code_verifier ? deps.secrets.decrypt(row.code_verifier) : undefined,
          },
        );
  } catch (err) {
    deps.log.warn({ type, status: (err as PlatformError).status }, "oauth code exchange failed");
    return fail("exchange_failed");
  }
  Object.assign(creds, tokens);
  let account: { id: string; name: string; extra?: Record<string, string> };
  try {
    const params: Record<string, string> = {};
    if (query.realmId) params.realmId = query.realmId;
    account = await adapter.fetchAccount(ctx, params);
  } catch (err) {
    deps.log.warn({ type, status: (err as PlatformError).status }, "oauth account lookup failed");
    // Nothing is stored, so the grant we just received is given back where the platform allows.
    await adapter.revoke?.(ctx).catch(() => undefined);
    return fail("account_failed");
  }
  if (account.extra) creds.extra = { ...creds.extra, ...account.extra };
  const project = { id: st.p, workspaceId: st.w };
  try {
    await saveConnection(deps, deps.db, project, type, account, creds);
  } catch (err) {
    deps.log.error({ err: (err as Error).message, type }, "storing the connection failed");
    return fail("server_error");
  }
  return `${base}?connected=${type}`;
}
