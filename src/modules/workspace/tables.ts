import type { Role, Tier } from "../../platform/auth/principal.js";

export type { Role, Tier };

export interface WorkspaceTable {
  id: string;
  name: string;
  tier: Tier;
  created_at: string;
}
export interface UserTable {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  password_hash: string;
  created_at: string;
}
export interface ProjectTable {
  id: string;
  workspace_id: string;
  name: string;
  public_key: string;
  created_at: string;
}
export interface ProjectKeyTable {
  id: string;
  project_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
}

/** A sign-in session (sessions.ts); times epoch ms. */
export interface UserSessionTable {
  id: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ended_at: number | null;
}

/** An invitation to the workspace (invites.ts); times ISO text. */
export interface InviteTable {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  /** SHA-256 (hex) of the link's token: the token itself is only in the mail */
  token_hash: string;
  invited_by_id: string;
  invited_by_email: string;
  /** the transactional send record of the mail (null when refused before one existed) */
  send_id: string | null;
  delivery_status: string;
  delivery_error: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

declare module "../../platform/db/types.js" {
  interface Database {
    workspace_invites: InviteTable;
    user_sessions: UserSessionTable;
    workspaces: WorkspaceTable;
    users: UserTable;
    projects: ProjectTable;
    project_keys: ProjectKeyTable;
  }
}
