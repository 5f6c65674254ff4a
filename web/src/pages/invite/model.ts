/** An invitation looked up by its token, before signing in. */
export const inviteKeys = { one: (token: string) => ["invite", token] as const };
