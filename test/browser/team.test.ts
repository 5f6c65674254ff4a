import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMail, type SmtpPeer, startSmtpPeer } from "../../src/modules/email/email.testing.js";
import {
  checkPage,
  type Dashboard,
  sendEvent,
  settled,
  signIn,
  startDashboard,
} from "./dashboard-harness.js";

/**
 * Issue 34, item 7 in Chromium: an invitation mailed through a real SMTP peer and accepted in a
 * browser without a session; an empty project's first run turning into the overview live.
 */
let d: Dashboard;
let peer: SmtpPeer;
beforeAll(async () => {
  peer = await startSmtpPeer();
  d = await startDashboard({ smtpUrl: peer.url });
}, 60_000);
afterAll(async () => {
  await d?.close();
  await peer?.close();
});

describe("team and first run in Chromium", () => {
  it("an admin invites by email; the invitee opens the mailed link, sets a password and is signed in", async () => {
    const a = await d.t.tenant();
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/settings`);
    await signIn(page, a.admin.email);
    await settled(page);
    const email = `invitee-${Date.now()}@example.com`;
    const form = page.getByRole("form", { name: "Invite a member" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Role").selectOption("member");
    await form.getByRole("button", { name: "Invite" }).click();
    await page.getByText(`Invitation sent to ${email}.`).waitFor();
    const pending = page.getByRole("region", { name: "Pending invitations", exact: true });
    await pending.getByRole("cell", { name: email, exact: true }).waitFor();
    await checkPage(page, "settings-invited");

    const mail = peer.messages.find((m) => m.to.includes(email));
    expect(mail).toBeDefined();
    const parsed = await parseMail(mail!.raw);
    expect(parsed.subject).toBe(`${a.admin.email} invited you to ${a.workspace.name}`);
    // the mail's link is PUBLIC_URL's; the same path on this test server
    const token = /\/invite\/(svc_inv_[A-Za-z0-9]+)/.exec(parsed.text ?? "")![1]!;

    for (const scheme of ["light", "dark"] as const) {
      const look = await d.open({ colorScheme: scheme });
      await look.page.goto(`${d.base}/invite/${token}`);
      await look.page.getByText(`${a.admin.email} invited you to`).waitFor();
      await checkPage(look.page, `accept-invite-${scheme}`);
      expect(look.problems).toEqual([]);
    }
    const invitee = await d.open();
    await invitee.page.goto(`${d.base}/invite/${token}`);
    expect(await invitee.page.getByLabel("Email").inputValue()).toBe(email);
    await invitee.page.getByLabel("Choose a password").fill("the invitee's own");
    await invitee.page.getByLabel("Password again").fill("not the same");
    await invitee.page.getByText("The two passwords differ.").waitFor();
    await invitee.page.getByLabel("Password again").fill("the invitee's own");
    await invitee.page.getByRole("button", { name: `Join ${a.workspace.name}` }).click();
    await invitee.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    expect(await invitee.page.locator(".user").textContent()).toBe(email);
    expect(invitee.problems).toEqual([]);

    // used once: the link now says so; the admin sees the member, and no pending invitation
    const again = await d.open();
    await again.page.goto(`${d.base}/invite/${token}`);
    await again.page.getByText("this invitation was already used: sign in instead").waitFor();
    await page.reload();
    await page
      .getByRole("region", { name: "Members" })
      .getByRole("cell", { name: email, exact: true })
      .waitFor();
    expect(await pending.count()).toBe(0);
    const login = await d.t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email, password: "the invitee's own" },
    });
    expect(login.statusCode).toBe(200);
    expect(problems).toEqual([]);
  }, 120_000);

  it("a revoked invitation's link says it cannot be used", async () => {
    const a = await d.t.tenant();
    const email = `revoked-${Date.now()}@example.com`;
    const created = await a.post("/api/workspace/invites", { email, role: "admin" }, { as: "admin" });
    const token = (created.body.acceptUrl as string).split("/invite/")[1]!;
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/settings`);
    await signIn(page, a.admin.email);
    await page.getByRole("button", { name: `Revoke the invitation to ${email}` }).click();
    await page.getByRole("region", { name: "Pending invitations" }).waitFor({ state: "detached" });
    const visitor = await d.open();
    await visitor.page.goto(`${d.base}/invite/${token}`);
    await visitor.page.getByText("This invitation cannot be used").waitFor();
    await visitor.page.getByText("no invitation at this link").waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("an empty project shows its snippet and waits live; the first event turns it into the overview", async () => {
    const a = await d.t.tenant();
    for (const scheme of ["light", "dark"] as const) {
      const { page, problems } = await d.open({ colorScheme: scheme });
      await page.goto(`${d.base}/`);
      await signIn(page, a.admin.email);
      await page.getByText("Waiting for your first event").waitFor();
      expect(await page.getByTestId("first-run-snippet").textContent()).toBe(
        `<script src="${d.base}/api/svc-js?key=${a.publicKey}"></script>`,
      );
      await checkPage(page, `first-run-${scheme}`);
      expect(problems).toEqual([]);
      await page.context().close();
    }
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/`);
    await signIn(page, a.admin.email);
    await page.getByText("Waiting for your first event").waitFor();
    // the page polls: no reload, the overview replaces the wait once the event is stored
    await sendEvent(d.base, a, { visitorId: "first-ever" });
    await page.getByText("Waiting for your first event").waitFor({ state: "detached", timeout: 10_000 });
    await settled(page);
    const visitors = page
      .locator(".tile", { has: page.locator(".tile-label", { hasText: /^Visitors$/ }) })
      .locator(".tile-value");
    expect(await visitors.textContent()).toBe("1");
    expect(problems).toEqual([]);
  }, 90_000);
});
