import type { KeyKind, ProjectKeyKind } from "./keys.js";
import type { SessionClaims } from "./session.js";

/** A workspace's plan tier, in ascending order (the spec's mapping of transactional throughput). */
export type Tier = "free" | "starter" | "pro" | "growth" | "scale";
export type Role = "admin" | "member";

/**
 * Who is calling, the one caller on a request (`req.principal`), set only by the guards of
 * `platform/auth/plugin.ts`. `kind` says which credential the route took:
 * - `session`: a signed-in user (dashboard);
 * - `apiKey`: a project's secret API key (`svc_key_…` in a header; server/SDK);
 * - `projectKey`: the project key of a public endpoint (`svc_pk_…` or `svc_key_…` in the body, the
 *   path or as Segment's write key), with the key itself: its budgets are counted per key;
 * - `txKey`: a transactional API key (`svc_tx_…`), which acts on its workspace.
 * `keyKind` says what kind of caller that is (`public`, `secret`, `session`, `transactional`): the
 * rules judge by it, never by a key's prefix.
 * `project` is the project the request acts on: set on project-scoped routes and public
 * endpoints, null on workspace-level ones (read it with `projectOf(req)`).
 */
export type Principal =
  | {
      kind: "session";
      keyKind: "session";
      workspaceId: string;
      userId: string;
      /** the server-side session the cookie names (ended by logout, a password change, an admin) */
      sessionId: string;
      role: Role;
      email: string;
      project: ProjectRef | null;
    }
  | {
      kind: "apiKey";
      keyKind: "secret";
      workspaceId: string;
      projectId: string;
      keyId: string;
      project: ProjectRef | null;
    }
  | { kind: "projectKey"; keyKind: ProjectKeyKind; key: string; workspaceId: string; project: ProjectRef }
  | { kind: "txKey"; keyKind: "transactional"; workspaceId: string; keyId: string; project: null };

/** Any principal's kind of caller. */
export type { KeyKind };

/** A signed-in person's principal (routes that only a session reaches). */
export type SessionPrincipal = Extract<Principal, { kind: "session" }>;

/** The project a request acts on. */
export interface ProjectRef {
  id: string;
  workspaceId: string;
}

export interface WorkspaceRef {
  id: string;
  tier: Tier;
}

/** Supplied by the workspace module: the lookups authentication needs, so platform code holds no tables. */
export interface PrincipalResolver {
  /** Returns the key's principal (and marks it used), or null for an unknown or deleted key. */
  resolveApiKey(rawKey: string): Promise<Extract<Principal, { kind: "apiKey" }> | null>;
  /** The principal of a session that still stands (not ended, within its lifetimes), else null. */
  resolveSession(claims: SessionClaims): Promise<Extract<Principal, { kind: "session" }> | null>;
  /** The project a session acts on: the given id if it is in the workspace, else the first project. */
  resolveSessionProject(workspaceId: string, projectId: string | undefined): Promise<ProjectRef | null>;
  /** Resolves the project key of a public endpoint: the public `svc_pk_…` or a secret `svc_key_…`. */
  resolvePublicKey(publicKey: string): Promise<ProjectRef | null>;
  /** Drops remembered key resolutions (after a key is deleted). */
  forgetKeys(): void;
}

/** A workspace's transactional key (`svc_tx_…`), supplied by the module that keeps them. */
export type TransactionalKeyLookup = (
  rawKey: string,
) => Promise<{ keyId: string; workspaceId: string } | null>;
