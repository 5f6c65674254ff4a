import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

/**
 * Without SMTP_URL an invitation is not mailed (it lands in DATA_DIR/outbox): the admin is told
 * so and gets the link to hand over, with a copy button; the link lets the invitee in.
 */
let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

describe("an invitation without a mail server, in Chromium", () => {
  it("shows the link once with a copy button and says no email was sent; the invitee sets a password", async () => {
    expect(d.t.config.smtpUrl).toBeUndefined();
    const a = await d.t.tenant();
    const { context, page, problems } = await d.open();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: d.base });
    await page.goto(`${d.base}/settings`);
    await signIn(page, a.admin.email);
    await settled(page);
    const email = `handed-${Date.now()}@example.com`;
    const form = page.getByRole("form", { name: "Invite a member" });
    await form.getByLabel("Email").fill(email);
    await form.getByRole("button", { name: "Invite" }).click();
    await page.getByText(`No email was sent to ${email}`).waitFor();
    expect(await page.getByText(`Invitation sent to ${email}`).count()).toBe(0);
    const link = (await page.getByTestId("invite-link").textContent())!;
    expect(link).toMatch(/\/invite\/svc_inv_[A-Za-z0-9]{43}$/);
    await page.getByRole("button", { name: "Copy link" }).click();
    await page.getByText("Copied.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await checkPage(page, "settings-invite-link");
    // the pending list says it was not mailed, and never shows the link again
    const pending = page.getByRole("region", { name: "Pending invitations", exact: true });
    await pending.getByRole("cell", { name: email, exact: true }).waitFor();
    await pending.getByRole("cell", { name: "not sent: no mail server" }).waitFor();
    await page.reload();
    await settled(page);
    await pending.getByRole("cell", { name: email, exact: true }).waitFor();
    expect(await page.getByTestId("invite-link").count()).toBe(0);
    expect(await page.content()).not.toContain(link.split("/invite/")[1]!);

    // the link on this server (PUBLIC_URL names another host in tests): the invitee joins
    const invitee = await d.open();
    await invitee.page.goto(`${d.base}/invite/${link.split("/invite/")[1]}`);
    expect(await invitee.page.getByLabel("Email").inputValue()).toBe(email);
    await invitee.page.getByLabel("Choose a password").fill("handed over in person");
    await invitee.page.getByLabel("Password again").fill("handed over in person");
    await invitee.page.getByRole("button", { name: `Join ${a.workspace.name}` }).click();
    await invitee.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    expect(await invitee.page.locator(".user").textContent()).toBe(email);
    expect(invitee.problems).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);
});
