import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, call, type LiftProcess, type LiftStore, liftStore } from "../hardening/lift-process.js";

/**
 * Issue 31, item 3: a session ends when it should, on every process. Before, the cookie's 7-day
 * token kept working after logout (it still did PATCH /api/workspace), and nothing could end a
 * stolen session short of deleting the user.
 */
let store: LiftStore;
let a: LiftProcess;
let b: LiftProcess;
beforeAll(async () => {
  store = await liftStore("sessions");
  a = await store.start();
  b = await store.start();
}, 120_000);
afterAll(async () => store?.dispose());

async function signIn(on: LiftProcess, email: string, password: string): Promise<string> {
  const res = await call(on.base, "POST", "/api/auth/login", { body: { email, password } });
  expect(res.status).toBe(200);
  return res.headers.getSetCookie()[0]!.split(";")[0]!;
}
const asCookie = (cookie: string) => ({ headers: { cookie } });
const rename = (on: LiftProcess, cookie: string, name: string) =>
  call(on.base, "PATCH", "/api/workspace", { ...asCookie(cookie), body: { name } });

describe("sessions end on every process", () => {
  it("logout on one process refuses that token on the other at once, and leaves other sessions alone", async () => {
    const mine = await signIn(a, ADMIN.email, ADMIN.password);
    const other = await signIn(b, ADMIN.email, ADMIN.password);
    expect((await rename(b, mine, "Before logout")).status).toBe(200);
    const out = await call(a.base, "POST", "/api/auth/logout", asCookie(mine));
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toMatch(/svc_session=;/);
    // The token itself is still validly signed and unexpired: only the server-side session ended.
    const after = await rename(b, mine, "After logout");
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    expect((await call(a.base, "GET", "/api/auth/me", asCookie(mine))).status).toBe(401);
    expect((await rename(a, other, "Other session")).status).toBe(200);
  });

  it("a password change ends the user's other sessions on both processes, keeps the one that made it", async () => {
    const stolen = await signIn(a, ADMIN.email, ADMIN.password);
    const mine = await signIn(b, ADMIN.email, ADMIN.password);
    const wrong = await call(b.base, "POST", "/api/auth/password", {
      ...asCookie(mine),
      body: { currentPassword: "not it at all", newPassword: "a brand new passphrase" },
    });
    expect(wrong.status).toBe(401);
    const changed = await call(b.base, "POST", "/api/auth/password", {
      ...asCookie(mine),
      body: { currentPassword: ADMIN.password, newPassword: "a brand new passphrase" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.changed).toBe(true);
    expect(changed.body.endedSessions).toBeGreaterThanOrEqual(1);
    expect((await rename(a, stolen, "Thief")).status).toBe(401);
    expect((await rename(b, stolen, "Thief")).status).toBe(401);
    expect((await rename(a, mine, "Owner")).status).toBe(200);
    // The old password no longer signs in; the new one does. Put it back for the other tests.
    expect((await call(a.base, "POST", "/api/auth/login", { body: ADMIN })).status).toBe(401);
    const fresh = await signIn(a, ADMIN.email, "a brand new passphrase");
    const back = await call(a.base, "POST", "/api/auth/password", {
      ...asCookie(fresh),
      body: { currentPassword: "a brand new passphrase", newPassword: ADMIN.password },
    });
    expect(back.status).toBe(200);
  });

  it("an admin ends a member's sessions; a member cannot, and cannot reach another workspace's user", async () => {
    const admin = await signIn(a, ADMIN.email, ADMIN.password);
    const created = await call(a.base, "POST", "/api/workspace/users", {
      ...asCookie(admin),
      body: { email: "member@example.com", role: "member", password: "member passphrase" },
    });
    expect(created.status).toBe(201);
    const member = await signIn(b, "member@example.com", "member passphrase");
    expect((await call(b.base, "GET", "/api/auth/me", asCookie(member))).status).toBe(200);
    const refused = await call(b.base, "DELETE", `/api/workspace/users/${created.body.id}/sessions`, {
      ...asCookie(member),
    });
    expect(refused.status).toBe(403);
    const ended = await call(a.base, "DELETE", `/api/workspace/users/${created.body.id}/sessions`, {
      ...asCookie(admin),
    });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ userId: created.body.id, endedSessions: 1 });
    expect((await call(b.base, "GET", "/api/auth/me", asCookie(member))).status).toBe(401);
    const unknown = await call(a.base, "DELETE", "/api/workspace/users/usr_nobody/sessions", {
      ...asCookie(admin),
    });
    expect(unknown.status).toBe(404);
  });
});
