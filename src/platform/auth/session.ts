import { SignJWT, jwtVerify } from "jose";

export const SESSION_COOKIE = "svc_session";
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

export async function signSession(key: Uint8Array, userId: string, workspaceId: string): Promise<string> {
  return new SignJWT({ wid: workspaceId })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(`${SESSION_TTL_SECONDS}s`)
    .sign(key);
}

/** Returns the user id of a valid, unexpired session token, else null. */
export async function verifySession(key: Uint8Array, token: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"] });
    return typeof payload.sub === "string" ? payload.sub : null;
  } catch {
    return null;
  }
}
