import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { parseMail, type SmtpPeer, startSmtpPeer, txTenant } from "./email.testing.js";

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
  peer.onData = null;
});

describe("delivery through a real SMTP peer", () => {
  it("delivers a catalog template: headers, subject, escaped html, text, tracking links, no unsubscribe", async () => {
    const a = await txTenant(t);
    const res = await a.send({
      to: "Ada@Example.com",
      commId: "invite",
      variables: {
        acceptUrl: "https://app.example.com/accept?token=abc&team=1",
        inviterName: "Grace <Hopper> & co",
        orgName: "Acme",
        role: "admin",
      },
      tags: { flow: "invite" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      send_id: expect.stringMatching(/^snd_/),
      message_id: expect.any(String),
      status: "sent",
      sandbox: false,
    });
    expect(peer.messages).toHaveLength(1);
    expect(peer.messages[0]!.to.map((x) => x.toLowerCase())).toEqual(["ada@example.com"]);
    const mail = await parseMail(peer.messages[0]!.raw);
    expect(mail.subject).toBe("Grace <Hopper> & co invited you to Acme");
    expect(mail.messageId).toBe(`<${res.body.message_id}>`);
    expect(mail.from?.address).toMatch(/^no-reply@/);
    expect(mail.headers.find((h) => h.key === "x-lift-send-id")?.value).toBe(res.body.send_id);
    expect(mail.headers.some((h) => h.key === "list-unsubscribe")).toBe(false);
    // html: values escaped, links rewritten to signed redirects served by the API, open pixel present
    expect(mail.html).toContain("Grace &lt;Hopper&gt; &amp; co");
    expect(mail.html).not.toContain("Grace <Hopper>");
    expect(mail.html).not.toContain('href="https://app.example.com/accept');
    expect(mail.html).toContain("https://app.example.com/accept?token=abc&amp;team=1"); // the visible fallback link text
    expect(mail.html).toContain(`https://lift.example.com/api/transactional/t/c/${res.body.send_id}?u=`);
    expect(mail.html).toContain(`https://lift.example.com/api/transactional/t/o/${res.body.send_id}/`);
    expect(mail.html!.toLowerCase()).not.toContain("unsubscribe");
    // text: raw values, the real link
    expect(mail.text).toContain("Grace <Hopper> & co invited you to join Acme as admin.");
    expect(mail.text).toContain("https://app.example.com/accept?token=abc&team=1");
    expect(mail.text!.toLowerCase()).not.toContain("unsubscribe");

    // the click link redirects to the original URL and both open and click reach the timeline
    const href = /href="(https:\/\/lift\.example\.com\/api\/transactional\/t\/c\/[^"]+)"/.exec(
      mail.html!,
    )![1]!;
    const click = await t.app.inject({
      url: href.replace("https://lift.example.com", "").replace(/&amp;/g, "&"),
    });
    expect(click.statusCode).toBe(302);
    expect(click.headers.location).toBe("https://app.example.com/accept?token=abc&team=1");
    const src = /src="(https:\/\/lift\.example\.com\/api\/transactional\/t\/o\/[^"]+)"/.exec(mail.html!)![1]!;
    const open = await t.app.inject({ url: src.replace("https://lift.example.com", "") });
    expect(open.statusCode).toBe(200);
    expect(open.headers["content-type"]).toBe("image/gif");
    const badPixel = await t.app.inject({ url: `/api/transactional/t/o/${res.body.send_id}/forged.gif` });
    expect(badPixel.statusCode).toBe(200); // still a pixel, but not recorded
    const forged = await t.app.inject({
      url: `/api/transactional/t/c/${res.body.send_id}?u=https%3A%2F%2Fevil.example&s=xyz`,
    });
    expect(forged.statusCode).toBe(404);

    const detail = await a.get(`/api/transactional/sends/${res.body.send_id}`, { as: "admin" });
    expect(detail.status).toBe(200);
    expect(detail.body.timeline.map((e: { type: string }) => e.type)).toEqual([
      "queued",
      "sent",
      "clicked",
      "opened",
    ]);
    expect(detail.body).toMatchObject({
      status: "sent",
      commId: "invite",
      tags: { flow: "invite" },
      sandbox: false,
    });
    // the transactional API emits no outgoing webhook (service) events
    const emitted = await t.app.db
      .selectFrom("service_events")
      .select("id")
      .where("workspace_id", "=", a.workspaceId)
      .execute();
    expect(emitted).toEqual([]);
    const recent = await a.get("/api/transactional/recent", { as: "admin" });
    expect(recent.body[0]).toMatchObject({
      id: res.body.send_id,
      to: "Ada@Example.com",
      subject: mail.subject,
    });
  });

  it("keeps mailto: links untracked and derives text from html for an inline send", async () => {
    const a = await txTenant(t);
    const res = await a.send({
      to: "bob@example.com",
      subject: "Hello ✓",
      html: '<p>Write to <a href="mailto:help@example.com">help</a> or <a href="https://example.com/docs">read the docs</a>.</p>',
    });
    expect(res.status).toBe(200);
    const mail = await parseMail(peer.messages[0]!.raw);
    expect(mail.subject).toBe("Hello ✓");
    expect(mail.html).toContain('href="mailto:help@example.com"');
    expect(mail.html).not.toContain('href="https://example.com/docs"');
    expect(mail.text).toContain("read the docs [https://example.com/docs]");
  });

  it("retries a peer answering 451 twice then 250: exactly one delivery", async () => {
    const a = await txTenant(t);
    let calls = 0;
    peer.onData = () => (++calls <= 2 ? { code: 451, message: "4.3.0 try again later" } : null);
    const res = await a.send({ to: "carol@example.com", subject: "retry", text: "body" });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("sent");
    expect(calls).toBe(3);
    expect(peer.messages).toHaveLength(1);
    const detail = await a.get(`/api/transactional/sends/${res.body.send_id}`, { as: "admin" });
    expect(detail.body.attempts).toBe(3);
  });

  it("hands a longer outage to the delivery job, which delivers once the peer recovers", async () => {
    const a = await txTenant(t);
    let calls = 0;
    peer.onRcpt = () => (++calls <= 4 ? { code: 451, message: "4.7.0 busy" } : null);
    const res = await a.send({ to: "dave@example.com", subject: "later", text: "body" });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("queued");
    expect(peer.messages).toHaveLength(0);
    const row = await t.app.db
      .selectFrom("tx_sends")
      .selectAll()
      .where("id", "=", res.body.send_id)
      .executeTakeFirstOrThrow();
    expect(row.pending_message).not.toContain("body"); // sealed at rest
    for (let i = 0; i < 5 && peer.messages.length === 0; i++) {
      await t.app.db.updateTable("jobs").set({ run_at: 0 }).where("status", "=", "queued").execute();
      await t.app.worker.drain();
    }
    expect(peer.messages).toHaveLength(1);
    const detail = await a.get(`/api/transactional/sends/${res.body.send_id}`, { as: "admin" });
    expect(detail.body.status).toBe("sent");
    const types = detail.body.timeline.map((e: { type: string }) => e.type);
    expect(types[0]).toBe("queued");
    expect(types.filter((x: string) => x === "deferred").length).toBe(calls - 3);
    expect(types.at(-1)).toBe("sent");
    expect(calls).toBe(5);
    const after = await t.app.db
      .selectFrom("tx_sends")
      .select("pending_message")
      .where("id", "=", res.body.send_id)
      .executeTakeFirstOrThrow();
    expect(after.pending_message).toBeNull();
  });

  it("the delivery job gives up after its schedule: failed, sealed copy erased", async () => {
    const a = await txTenant(t);
    peer.onRcpt = () => ({ code: 451, message: "4.4.1 still down" });
    const res = await a.send({ to: "hal@example.com", subject: "never", text: "body" });
    expect(res.body.status).toBe("queued");
    for (let i = 0; i < 12; i++) {
      await t.app.db.updateTable("jobs").set({ run_at: 0 }).where("status", "=", "queued").execute();
      await t.app.worker.drain();
    }
    const detail = await a.get(`/api/transactional/sends/${res.body.send_id}`, { as: "admin" });
    expect(detail.body.status).toBe("failed");
    expect(detail.body.timeline.at(-1)).toMatchObject({ type: "failed", detail: { gaveUp: true } });
    const row = await t.app.db
      .selectFrom("tx_sends")
      .select("pending_message")
      .where("id", "=", res.body.send_id)
      .executeTakeFirstOrThrow();
    expect(row.pending_message).toBeNull();
    expect(peer.messages).toHaveLength(0);
  });

  it("550 → 422 send_failed with the server's reply; the address is suppressed; next send 422 suppressed", async () => {
    const a = await txTenant(t);
    peer.onRcpt = (to) =>
      to === "gone@example.com" ? { code: 550, message: "5.1.1 mailbox does not exist" } : null;
    const res = await a.send({ to: "gone@example.com", subject: "hi", text: "body" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("send_failed");
    expect(res.body.error.message).toContain("5.1.1 mailbox does not exist");
    const list = await a.get("/api/transactional/suppressions", { as: "admin" });
    expect(list.body).toEqual([
      expect.objectContaining({ email: "gone@example.com", reason: "hard_bounce" }),
    ]);
    peer.onRcpt = null;
    const next = await a.send({ to: "GONE@example.com", subject: "hi", text: "body" });
    expect(next.status).toBe(422);
    expect(next.body).toEqual({
      error: { code: "suppressed", message: expect.any(String), requestId: expect.any(String) },
    });
    expect(peer.messages).toHaveLength(0);
    // lifting the suppression lets mail through again
    const lift = await a.del("/api/transactional/suppressions/gone%40example.com", undefined, {
      as: "admin",
    });
    expect(lift.body).toEqual({ id: "gone@example.com", deleted: true });
    expect((await a.send({ to: "gone@example.com", subject: "hi", text: "body" })).status).toBe(200);
    expect(peer.messages).toHaveLength(1);
  });

  it("a 554 at end of data is send_failed without suppression", async () => {
    const a = await txTenant(t);
    peer.onData = () => ({ code: 554, message: "5.7.1 message rejected as spam" });
    const res = await a.send({ to: "erin@example.com", subject: "hi", text: "body" });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("send_failed");
    expect((await a.get("/api/transactional/suppressions", { as: "admin" })).body).toEqual([]);
  });

  it("provider webhook: a hard bounce suppresses and appends to the timeline; a complaint too", async () => {
    const a = await txTenant(t);
    const sent = await a.send({ to: "frank@example.com", subject: "hi", text: "body" });
    const hook = (body: unknown) =>
      a.post("/api/transactional/webhooks/provider", body, {
        as: "none",
        headers: { authorization: `Bearer ${a.txKey}` },
      });
    const r1 = await hook({
      type: "bounce",
      bounceType: "hard",
      email: "frank@example.com",
      messageId: sent.body.message_id,
    });
    expect(r1.status).toBe(200);
    const r2 = await hook({ RecordType: "SpamComplaint", Email: "gina@example.com" });
    expect(r2.status).toBe(200);
    expect((await hook({ type: "nope", email: "a@b.co" })).status).toBe(400);
    expect(
      (
        await a.post(
          "/api/transactional/webhooks/provider",
          { type: "bounce", email: "a@b.co" },
          { as: "none" },
        )
      ).status,
    ).toBe(401);
    const sup = await a.get("/api/transactional/suppressions", { as: "admin" });
    expect(sup.body.map((s: { email: string; reason: string }) => `${s.email}:${s.reason}`).sort()).toEqual([
      "frank@example.com:hard_bounce",
      "gina@example.com:complaint",
    ]);
    const detail = await a.get(`/api/transactional/sends/${sent.body.send_id}`, { as: "admin" });
    expect(detail.body.status).toBe("bounced");
    expect(detail.body.timeline.at(-1).type).toBe("bounced");
  });
});
