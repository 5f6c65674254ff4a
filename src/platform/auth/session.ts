import { SignJWT, jwtVerify } from "jose";

export const SESSION_COOKIE = "svc_session";
/** A session ends after this long without a request (docs/deploy.md, "Sessions"). */
export const SESSION_IDLE_MS = 7 * 86_400_000;
/** … and this long after sign-in, however active. The cookie and its token expire then too. */
export const SESSION_ABSOLUTE_MS = 30 * 86_400_000;

/** What a session token names: the server-side session (`sid`) of a user (`sub`). */
export interface SessionClaims {
  sessionId: string;
  userId: string;
}

/** The cookie's token: HS256 over the session's id and user, expiring with the session's absolute lifetime. */
export async function signSession(
  key: Uint8Array,
  claims: SessionClaims,
  expiresAtMs: number,
): Promise<string> {
  return new SignJWT({ sid: claims.sessionId })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(claims.userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAtMs / 1000))
    .sign(key);
}

/** The claims of a validly signed, unexpired token, else null. Whether the session still stands is the resolver's question. */
export async function verifySession(key: Uint8Array, token: string): Promise<SessionClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"] });
    return typeof payload.sub === "string" && typeof payload.sid === "string"
      ? { userId: payload.sub, sessionId: payload.sid }
      : null;
  } catch {
    return null;
  }
}
