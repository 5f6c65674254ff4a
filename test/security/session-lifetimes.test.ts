import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "../../src/platform/auth/session.js";
import { type TestApp, startTestApp } from "../helpers/app.js";

/** Issue 31, item 3: the idle and absolute lifetimes docs/deploy.md gives are the ones enforced. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const PASSWORD = "correct horse battery";

async function signIn(email: string): Promise<{ cookie: string; expires: string; sessionId: string }> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/auth/login",
    payload: { email, password: PASSWORD },
  });
  expect(res.statusCode).toBe(200);
  const setCookie = String(res.headers["set-cookie"]);
  const cookie = setCookie.split(";")[0]!;
  const row = await t.app.db
    .selectFrom("user_sessions")
    .select("id")
    .orderBy("created_at", "desc")
    .executeTakeFirstOrThrow();
  return { cookie, expires: /Expires=([^;]+)/i.exec(setCookie)![1]!, sessionId: row.id };
}
const me = (cookie: string) => t.app.inject({ url: "/api/auth/me", headers: { cookie } });

describe("session lifetimes", () => {
  it("the cookie expires with the absolute lifetime (30 days) and the session is refused past it", async () => {
    const a = await t.tenant();
    const s = await signIn(a.admin.email);
    const days = (Date.parse(s.expires) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(SESSION_ABSOLUTE_MS).toBe(30 * 86_400_000);
    expect((await me(s.cookie)).statusCode).toBe(200);
    await t.app.db
      .updateTable("user_sessions")
      .set({ expires_at: Date.now() - 1 })
      .where("id", "=", s.sessionId)
      .execute();
    expect((await me(s.cookie)).statusCode).toBe(401);
  });

  it("a session idle for 7 days is refused; one used within them is not", async () => {
    const a = await t.tenant();
    const s = await signIn(a.admin.email);
    expect(SESSION_IDLE_MS).toBe(7 * 86_400_000);
    const seen = (ms: number) =>
      t.app.db.updateTable("user_sessions").set({ last_seen_at: ms }).where("id", "=", s.sessionId).execute();
    await seen(Date.now() - SESSION_IDLE_MS + 60_000);
    expect((await me(s.cookie)).statusCode).toBe(200);
    await seen(Date.now() - SESSION_IDLE_MS - 1);
    expect((await me(s.cookie)).statusCode).toBe(401);
  });

  it("a token naming no session, or another user's session, is refused", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const sa = await signIn(a.admin.email);
    // b's cookie, rewritten to claim a's session id: the signature breaks, so it is refused.
    const sb = await signIn(b.admin.email);
    const [head, payload, sig] = sb.cookie.split("=")[1]!.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sid: sa.sessionId })).toString("base64url");
    expect((await me(`svc_session=${head}.${forged}.${sig}`)).statusCode).toBe(401);
    await t.app.db.deleteFrom("user_sessions").where("id", "=", sb.sessionId).execute();
    expect((await me(sb.cookie)).statusCode).toBe(401);
    expect((await me(sa.cookie)).statusCode).toBe(200);
  });
});
