import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { sha256Hex } from "../../platform/crypto.js";
import { parseMail, type SmtpPeer, startSmtpPeer } from "../email/email.testing.js";

/** Invitations through Lift's own transactional send to a real SMTP peer. */
let t: TestApp;
let peer: SmtpPeer;
beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await startTestApp({ smtpUrl: peer.url, publicUrl: "https://lift.example.com" });
});
afterAll(async () => {
  await t.close();
  await peer.close();
});
beforeEach(() => {
  peer.messages.length = 0;
  peer.onRcpt = null;
});

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const anon = (method: "GET" | "POST", url: string, body?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method,
    url,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });

/** Invites as the tenant's admin and reads the token from the mail that arrived. */
async function invite(a: Tenant, email: string, role = "member") {
  const res = await a.post("/api/workspace/invites", { email, role }, { as: "admin" });
  expect(res.status, res.text).toBe(201);
  const mail = peer.messages.find((m) => m.to.includes(email.toLowerCase()));
  expect(mail, `a mail to ${email}`).toBeDefined();
  const parsed = await parseMail(mail!.raw);
  const token = /\/invite\/(svc_inv_[A-Za-z0-9]+)/.exec(parsed.text ?? "")![1]!;
  return { res, parsed, token };
}

describe("an invitation by email", () => {
  it("mails the invite template with an untracked one-time link; accepting sets the password and signs in", async () => {
    const a = await t.tenant();
    await a.patch("/api/workspace", { name: "Acme Growth" }, { as: "admin" });
    const email = unique("ada");
    const { res, parsed, token } = await invite(a, email.toUpperCase());
    expect(res.body).toMatchObject({
      email,
      role: "member",
      status: "pending",
      invitedBy: { email: a.admin.email },
      delivery: { status: "sent", error: null, sendId: expect.stringMatching(/^snd_/) },
      acceptUrl: `https://lift.example.com/invite/${token}`,
    });
    const days = (Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)) / 86_400_000;
    expect(days).toBe(7);
    // the catalog template, filled in; the link goes straight to Lift's accept page
    expect(parsed.subject).toBe(`${a.admin.email} invited you to Acme Growth`);
    expect(parsed.text).toContain(`${a.admin.email} invited you to join Acme Growth as member.`);
    expect(parsed.html).toContain(`href="https://lift.example.com/invite/${token}"`);
    expect(parsed.html).not.toContain("/api/transactional/t/");
    // stored: the token's hash only; the send log knows the mail went out, not its link
    const row = await t.app.db
      .selectFrom("workspace_invites")
      .selectAll()
      .where("id", "=", res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(sha256Hex(token));
    const send = await a.get(`/api/transactional/sends/${res.body.delivery.sendId}`, { as: "admin" });
    expect(send.body).toMatchObject({
      commId: "invite",
      status: "sent",
      tags: { flow: "invite", inviteId: res.body.id },
    });
    expect(JSON.stringify(send.body)).not.toContain(token);
    expect(JSON.stringify(await t.app.db.selectFrom("tx_send_events").selectAll().execute())).not.toContain(
      token,
    );

    // the link shows who invited whom, without any session
    const preview = await anon("GET", `/api/invites/${token}`);
    expect(preview.statusCode).toBe(200);
    expect(preview.json()).toEqual({
      email,
      role: "member",
      workspace: { name: "Acme Growth" },
      invitedBy: { email: a.admin.email },
      expiresAt: res.body.expiresAt,
    });
    const accepted = await anon("POST", `/api/invites/${token}`, { password: "my own passphrase" });
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json()).toMatchObject({ user: { email, role: "member", workspaceId: a.workspaceId } });
    const cookie = String(accepted.headers["set-cookie"]).split(";")[0]!;
    expect(String(accepted.headers["set-cookie"])).toMatch(/HttpOnly/i);
    const me = await t.app.inject({ url: "/api/auth/me", headers: { cookie } });
    expect(me.json().user).toMatchObject({ email, role: "member" });
    const login = await anon("POST", "/api/auth/login", { email, password: "my own passphrase" });
    expect(login.statusCode).toBe(200);

    // once only
    expect((await anon("POST", `/api/invites/${token}`, { password: "another passphrase" })).statusCode).toBe(
      404,
    );
    const used = await anon("GET", `/api/invites/${token}`);
    expect(used.statusCode).toBe(404);
    expect(used.json().error).toBe("this invitation was already used: sign in instead");
    const list = await a.get("/api/workspace/invites", { as: "admin" });
    expect(list.body[0]).toMatchObject({
      id: res.body.id,
      status: "accepted",
      acceptedAt: expect.any(String),
    });
    expect(list.body[0].acceptUrl).toBeUndefined();
  });

  it("an expired, revoked, replaced or unknown link is 404; a second accept at the same moment is 404", async () => {
    const a = await t.tenant();
    const expired = await invite(a, unique("old"));
    await t.app.db
      .updateTable("workspace_invites")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", expired.res.body.id)
      .execute();
    const e = await anon("GET", `/api/invites/${expired.token}`);
    expect(e.statusCode).toBe(404);
    expect(e.json().error).toMatch(/expired/);
    expect(
      (await anon("POST", `/api/invites/${expired.token}`, { password: "too late now" })).statusCode,
    ).toBe(404);

    const revoked = await invite(a, unique("rev"));
    expect(
      (await a.del(`/api/workspace/invites/${revoked.res.body.id}`, undefined, { as: "admin" })).body,
    ).toEqual({
      id: revoked.res.body.id,
      deleted: true,
    });
    expect((await anon("GET", `/api/invites/${revoked.token}`)).statusCode).toBe(404);
    expect(
      (await a.del(`/api/workspace/invites/${revoked.res.body.id}`, undefined, { as: "admin" })).status,
    ).toBe(404);

    const email = unique("again");
    const first = await invite(a, email);
    peer.messages.length = 0;
    const second = await invite(a, email);
    expect((await anon("GET", `/api/invites/${first.token}`)).statusCode).toBe(404);
    expect((await anon("GET", `/api/invites/${second.token}`)).statusCode).toBe(200);

    for (const wrong of [`svc_inv_${"A".repeat(43)}`, "nope", second.token.slice(0, -1)])
      expect((await anon("GET", `/api/invites/${wrong}`)).statusCode).toBe(404);

    const statuses = (await a.get("/api/workspace/invites", { as: "admin" })).body.map(
      (i: { status: string }) => i.status,
    );
    expect(statuses).toEqual(["pending", "revoked", "revoked", "expired"]);

    const race = await Promise.all([
      anon("POST", `/api/invites/${second.token}`, { password: "first passphrase" }),
      anon("POST", `/api/invites/${second.token}`, { password: "second passphrase" }),
    ]);
    expect(race.map((r) => r.statusCode).sort()).toEqual([201, 404]);
    expect(
      (await t.app.db.selectFrom("users").select("id").where("email", "=", email).execute()).length,
    ).toBe(1);
    // an accepted invitation cannot be revoked
    expect(
      (await a.del(`/api/workspace/invites/${second.res.body.id}`, undefined, { as: "admin" })).status,
    ).toBe(409);
  });

  it("refuses: an existing user's email, bad input naming the field, members, other workspaces, other sites", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    expect(
      (await a.post("/api/workspace/invites", { email: a.admin.email, role: "member" }, { as: "admin" }))
        .status,
    ).toBe(409);
    const bad = await a.post(
      "/api/workspace/invites",
      { email: "not an email", role: "member" },
      { as: "admin" },
    );
    expect(bad.body).toMatchObject({ status: 400, error: "body.email must be a valid email" });
    const role = await a.post(
      "/api/workspace/invites",
      { email: unique("r"), role: "owner" },
      { as: "admin" },
    );
    expect(role.body.error).toBe("body.role must be one of admin, member");
    expect(
      (await a.post("/api/workspace/invites", { email: unique("m"), role: "member" }, { as: "member" }))
        .status,
    ).toBe(403);
    expect((await a.post("/api/workspace/invites", { email: unique("k"), role: "member" })).status).toBe(403);

    const { res, token } = await invite(a, unique("cross"));
    expect((await b.del(`/api/workspace/invites/${res.body.id}`, undefined, { as: "admin" })).status).toBe(
      404,
    );
    expect((await b.get("/api/workspace/invites", { as: "admin" })).body).toEqual([]);
    const short = await anon("POST", `/api/invites/${token}`, { password: "short" });
    expect(short.json()).toMatchObject({ status: 400, error: "body.password must be at least 8 characters" });
    const cross = await anon(
      "POST",
      `/api/invites/${token}`,
      { password: "long enough here" },
      { "sec-fetch-site": "cross-site" },
    );
    expect(cross.statusCode).toBe(403);
    // the same email signed up meanwhile: 409, and the invitation stays open
    await a.post(
      "/api/workspace/users",
      { email: res.body.email, role: "member", password: "their own one" },
      { as: "admin" },
    );
    expect((await anon("POST", `/api/invites/${token}`, { password: "long enough here" })).statusCode).toBe(
      409,
    );
    expect((await anon("GET", `/api/invites/${token}`)).statusCode).toBe(200);
  });

  it("an address the mail server refuses: the invitation stands, delivery says why, the link is returned once", async () => {
    const a = await t.tenant();
    const email = unique("bounce");
    peer.onRcpt = (to) => (to === email ? { code: 550, message: "5.1.1 no such mailbox" } : null);
    const res = await a.post("/api/workspace/invites", { email, role: "admin" }, { as: "admin" });
    expect(res.status).toBe(201);
    expect(res.body.delivery).toMatchObject({
      status: "send_failed",
      error: expect.stringContaining("5.1.1"),
    });
    expect(res.body.acceptUrl).toMatch(/\/invite\/svc_inv_/);
    const token = res.body.acceptUrl.split("/invite/")[1];
    const accepted = await anon("POST", `/api/invites/${token}`, { password: "handed over" });
    expect(accepted.json().user).toMatchObject({ email, role: "admin" });
  });
});
