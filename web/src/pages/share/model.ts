/** A dashboard seen through its public link (no session: the token is the key). */
export const shareKeys = { dashboard: (token: string) => ["shared", token] as const };
