import { Type, type Static } from "@sinclair/typebox";

export const TIERS = ["free", "starter", "pro", "growth", "scale"] as const;
export const TierSchema = Type.Union(TIERS.map((t) => Type.Literal(t)));
export const RoleSchema = Type.Union([Type.Literal("admin"), Type.Literal("member")]);
const Email = Type.String({ format: "email", maxLength: 320 });

export const LoginBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export const Workspace = Type.Object({ id: Type.String(), name: Type.String(), tier: TierSchema });
export const PatchWorkspaceBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    tier: Type.Optional({
      ...TierSchema,
      description:
        "the plan tier is the operator's (`lift set-tier`): accepted only when it is the current tier, else 403",
    }),
  },
  { additionalProperties: false },
);
export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
    newPassword: Type.String({ minLength: 8, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export const PasswordChanged = Type.Object({
  changed: Type.Literal(true),
  endedSessions: Type.Integer({ description: "the user's other sessions, ended by the change" }),
});
export const SessionsEnded = Type.Object({
  userId: Type.String(),
  endedSessions: Type.Integer(),
});
export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  workspaceId: Type.String(),
  createdAt: Type.String(),
});
export const Me = Type.Object({
  user: User,
  workspace: Workspace,
});
export const CreateUserBody = Type.Object(
  {
    email: Email,
    role: RoleSchema,
    password: Type.String({ minLength: 8, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  publicKey: Type.String(),
  createdAt: Type.String(),
});
export const CreateProjectBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
export const ProjectKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
});
export const CreatedProjectKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  rawKey: Type.String(),
  createdAt: Type.String(),
});
export const CreateKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
export const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const ProjectKeyParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  keyId: Type.String({ minLength: 1, maxLength: 100 }),
});
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

// ---------------------------------------------------------------- invitations

export const CreateInviteBody = Type.Object(
  { email: Email, role: RoleSchema },
  { additionalProperties: false },
);
export const INVITE_STATUSES = ["pending", "accepted", "expired", "revoked"] as const;
export const Invite = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  status: Type.Union(INVITE_STATUSES.map((s) => Type.Literal(s))),
  invitedBy: Type.Object({ id: Type.String(), email: Type.String() }),
  delivery: Type.Object(
    {
      sendId: Type.Union([Type.String(), Type.Null()]),
      status: Type.String({
        description:
          "sent, queued (retrying), outbox (no mail server is configured: written to the server's outbox, not sent — hand the link over), or why it was refused (suppressed …)",
      }),
      error: Type.Union([Type.String(), Type.Null()]),
    },
    { description: "the invitation mail, sent through Lift's transactional email (template invite)" },
  ),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  acceptedAt: Type.Union([Type.String(), Type.Null()]),
});
export const CreatedInvite = Type.Object({
  ...Invite.properties,
  acceptUrl: Type.String({
    description:
      "the link the mail carries, in this answer only, to the inviting admin: to hand over when the mail was not sent (no mail server) or does not arrive. Lift keeps only its hash",
  }),
});
export const InviteTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
export const InvitePreview = Type.Object({
  email: Type.String(),
  role: RoleSchema,
  workspace: Type.Object({ name: Type.String() }),
  invitedBy: Type.Object({ email: Type.String() }),
  expiresAt: Type.String(),
});
export const AcceptInviteBody = Type.Object(
  { password: Type.String({ minLength: 8, maxLength: 1024 }) },
  { additionalProperties: false },
);

export type WorkspaceT = Static<typeof Workspace>;
export type InviteT = Static<typeof Invite>;
export type UserT = Static<typeof User>;
export type ProjectT = Static<typeof Project>;
export type ProjectKeyT = Static<typeof ProjectKey>;
export type CreatedProjectKeyT = Static<typeof CreatedProjectKey>;
