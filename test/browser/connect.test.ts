import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { families, SECRET_PLACEHOLDER } from "../../web/src/pages/connect/snippets.js";
import { type Dashboard, PASSWORD, settled, signIn, startDashboard } from "./dashboard-harness.js";

/**
 * The Connect page: every family's card holds its setup lines with this server's host and the
 * current project's public key, exactly as the snippet functions write them; a copy button puts
 * that text on the clipboard.
 */
let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => {
  await d?.close();
});

describe("connect page in Chromium", () => {
  it("shows each family's setup with the project's host and public key, and copies it", async () => {
    const a = await d.t.tenant();
    const { context, page, problems } = await d.open();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: d.base });
    await page.goto(`${d.base}/connect`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Connect", level: 1 }).waitFor({ timeout: 10_000 });
    await settled(page);
    expect(await page.getByTestId("connect-public-key").textContent()).toBe(a.publicKey);

    for (const f of families) {
      const card = page.getByRole("region", { name: f.title, exact: true });
      for (const s of f.snippets) {
        const shown = await card.getByTestId(`snippet-${s.id}`).textContent();
        expect(shown, s.id).toBe(s.code(d.base, a.publicKey));
        expect(shown, s.id).toContain(d.base);
        if (s.secret) expect(shown, s.id).toContain(SECRET_PLACEHOLDER);
        else expect(shown, s.id).toContain(a.publicKey);
      }
      await card.getByRole("link", { name: f.link.text }).waitFor();
    }
    // where secret keys are made
    const keysLink = page.getByRole("link", { name: "Settings → API keys" }).first();
    expect(await keysLink.getAttribute("href")).toBe("/settings");

    const posthog = page.getByRole("region", { name: "PostHog", exact: true });
    await posthog.getByRole("button", { name: "Copy: Browser (posthog-js)" }).click();
    await posthog.getByText("Copied.").waitFor();
    const posthogJs = families.find((f) => f.id === "posthog")!.snippets[0]!;
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      posthogJs.code(d.base, a.publicKey),
    );

    // axe, widths and screenshots: every-page.test.ts visits this area as every other
    expect(problems).toEqual([]);
  });

  it("shows a member, who cannot list the projects' keys, a placeholder for the public key", async () => {
    const a = await d.t.tenant();
    const email = `member-${a.publicKey.slice(-8).toLowerCase()}@example.com`;
    const created = await a.post(
      "/api/workspace/users",
      { email, role: "member", password: PASSWORD },
      { as: "admin" },
    );
    expect(created.status).toBe(201);
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/connect`);
    await signIn(page, email);
    await page.getByRole("heading", { name: "Connect", level: 1 }).waitFor({ timeout: 10_000 });
    await settled(page);
    const posthogJs = families.find((f) => f.id === "posthog")!.snippets[0]!;
    expect(await page.getByTestId("snippet-posthog-js").textContent()).toBe(
      posthogJs.code(d.base, "<your public key>"),
    );
    expect(await page.getByTestId("connect-public-key").count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
