import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_COOKIE, signSession } from "../../platform/auth/session.js";

/** The session cookie is Secure everywhere but plain HTTP to a loopback host (development on this machine). */
function secureCookie(req: FastifyRequest): boolean {
  const loopback = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i.test(req.hostname);
  return !(req.protocol === "http" && loopback);
}

/** Signs the browser in to a session just started (sign-in, an accepted invitation). */
export async function setSessionCookie(
  req: FastifyRequest,
  reply: FastifyReply,
  key: Uint8Array,
  session: { id: string; expiresAt: number },
  userId: string,
): Promise<void> {
  const token = await signSession(key, { sessionId: session.id, userId }, session.expiresAt);
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookie(req),
    path: "/",
    expires: new Date(session.expiresAt),
  });
}
