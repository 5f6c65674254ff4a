import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tenant } from "../helpers/app.js";
import {
  checkPage,
  type Dashboard,
  PASSWORD,
  sendEvent,
  settled,
  signIn,
  startDashboard,
} from "./dashboard-harness.js";

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

const tileValue = (page: Page, label: string) =>
  page
    .locator(".tile", { has: page.locator(".tile-label", { hasText: new RegExp(`^${label}$`) }) })
    .locator(".tile-value");

// Every page at both widths in both schemes: every-page.test.ts.
describe("dashboard in Chromium", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await d.t.tenant();
  });

  it("signs in, shows seeded data on the overview, deep-links and reloads, shows its not-found page, signs out", async () => {
    await sendEvent(d.base, a, {
      visitorId: "visitor-1",
      url: "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
    });
    const { page, problems } = await d.open();

    await page.goto(`${d.base}/`);
    await page.waitForURL(/\/signin$/);
    await checkPage(page, "signin");
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await settled(page);
    expect(await tileValue(page, "Visitors").textContent()).toBe("1");
    expect(
      await page.getByRole("region", { name: "Top channels" }).getByRole("cell", { name: "email" }).count(),
    ).toBe(1);
    await page.locator(".chart-canvas canvas").first().waitFor();
    await checkPage(page, "overview");

    // period picker: 7 days is kept in the URL; the tiles compare with the 7 days before
    await page.getByText("7 days", { exact: true }).click();
    await page.waitForURL(/period=7d/);
    await settled(page);
    expect(await tileValue(page, "Visitors").textContent()).toBe("1");
    expect(await page.locator(".tile-change").first().textContent()).toContain("new");

    // a custom period: inclusive from/to, kept in the URL, compared with the days just before
    const today = new Date().toISOString().slice(0, 10);
    const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    await page.getByText("Custom", { exact: true }).click();
    await page.getByLabel("From", { exact: true }).fill(weekAgo);
    await page.getByLabel("To", { exact: true }).fill(today);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(new RegExp(`period=custom&from=${weekAgo}&to=${today}`));
    await settled(page);
    await page.getByText(`${weekAgo} to ${today} (UTC), compared with`).waitFor();
    expect(await tileValue(page, "Visitors").textContent()).toBe("1");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/settings");
    await checkPage(page, "settings");

    await page.goto(`${d.base}/integrations?connected=crm`);
    await page.getByText("Connected crm.").waitFor();
    await checkPage(page, "integrations");

    await page.goto(`${d.base}/no/such/page`);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    await checkPage(page, "not-found");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/signin$/);
    await page.goto(`${d.base}/settings`);
    await page.waitForURL(/\/signin\?next=%2Fsettings$/);
    // signing in again goes back to the page asked for
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    expect(problems).toEqual([]);
  }, 180_000);

  it("on a phone the navigation is one menu button: the page starts near the top; the menu opens and closes", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/settings`);
    await signIn(page, a.admin.email);
    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    const nav = page.getByRole("navigation", { name: "Main" });
    expect(await nav.isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(false);
    // the content starts right under one row of top bar (it was ~300 px of wrapped links)
    const top = await page.locator("main").evaluate((el) => el.getBoundingClientRect().top);
    expect(top).toBeLessThan(80);
    const toggle = page.getByRole("button", { name: "Menu" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    expect(await page.getByRole("button", { name: "Close menu" }).getAttribute("aria-expanded")).toBe("true");
    expect(await nav.isVisible()).toBe(true);
    await checkPage(page, "phone-menu-open");
    await page.setViewportSize({ width: 390, height: 800 });
    await nav.getByRole("link", { name: "Funnels" }).click();
    await page.getByRole("heading", { name: "Funnels", level: 1 }).waitFor();
    expect(await nav.isVisible()).toBe(false);
    // wider than a phone: no menu button, the navigation is shown
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await page.getByRole("button", { name: "Menu" }).isVisible()).toBe(false);
    expect(await nav.isVisible()).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows the API's message when sign-in fails, and a 401 anywhere sends the app to sign-in", async () => {
    const { page, context, problems } = await d.open();
    await page.goto(`${d.base}/signin`);
    await page.getByLabel("Email").fill(a.admin.email);
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page
      .getByRole("alert")
      .getByText(/invalid email or password/i)
      .waitFor();
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    // Off the overview first: an empty project's overview polls for its first event, and under
    // load that poll's 401 won the race against the click below (the link left the DOM).
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Goals" }).click();
    await page.getByRole("heading", { name: "Goals & beliefs" }).waitFor();
    await context.clearCookies();
    await nav.getByRole("link", { name: "Settings" }).click();
    await page.waitForURL(/\/signin\?next=%2Fsettings$/);
    expect(problems).toEqual([]);
  }, 60_000);

  it("switches project: every page shows the chosen project, and the choice is remembered", async () => {
    const b = await d.t.tenant();
    const second = await b.post("/api/projects", { name: "Second shop" }, { as: "admin" });
    expect(second.status).toBe(201);
    const secondTenant = { ...b, publicKey: second.body.publicKey };
    await sendEvent(d.base, secondTenant, { visitorId: "s1" });
    await sendEvent(d.base, secondTenant, { visitorId: "s2" });

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/`);
    await signIn(page, b.admin.email);
    await settled(page);
    // b's first project has no event yet: its overview is the first run, with that project's key
    expect(await page.getByTestId("first-run-snippet").textContent()).toContain(`key=${b.publicKey}`);
    await page.getByLabel("Project", { exact: true }).selectOption({ label: "Second shop" });
    await page.waitForFunction(() => document.querySelector(".tile-value")?.textContent === "2");
    await page.reload();
    await settled(page);
    expect(await page.getByLabel("Project", { exact: true }).locator("option:checked").textContent()).toBe(
      "Second shop",
    );
    expect(await tileValue(page, "Visitors").textContent()).toBe("2");
    await page.goto(`${d.base}/settings`);
    await page.getByRole("heading", { name: "API keys of Second shop" }).waitFor();
    expect(await page.getByTestId("snippet").textContent()).toContain(
      `/api/svc-js?key=${second.body.publicKey}`,
    );
    expect(problems).toEqual([]);
  }, 90_000);

  it("settings: a minted key is shown once, listed by its prefix, and works", async () => {
    const c = await d.t.tenant();
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/settings`);
    await signIn(page, c.admin.email);
    await page.getByRole("heading", { name: `API keys of ${c.project.name}` }).waitFor();
    await page.getByLabel("Key name").fill("CI server");
    await page.getByRole("button", { name: "Create key" }).click();
    const rawKey = (await page.getByTestId("raw-key").textContent())!;
    expect(rawKey).toMatch(/^svc_key_[\w-]{40,}$/);
    const keys = page.getByRole("region", { name: "API keys" });
    await keys.getByRole("cell", { name: "CI server", exact: true }).waitFor();
    expect(await keys.getByRole("cell", { name: `${rawKey.slice(0, 12)}…` }).count()).toBe(1);
    const works = await fetch(`${d.base}/api/leads`, { headers: { "x-api-key": rawKey } });
    expect(works.status).toBe(200);
    await checkPage(page, "settings-new-key");
    // Revoking the key just made hides its one-time value at once (it was left on screen before).
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke CI server" }).click();
    await page.getByTestId("raw-key").waitFor({ state: "detached" });
    expect((await fetch(`${d.base}/api/leads`, { headers: { "x-api-key": rawKey } })).status).toBe(401);

    await page.reload();
    await keys.getByRole("cell", { name: `${c.key.prefix}…` }).waitFor();
    expect(await keys.getByRole("cell", { name: "CI server", exact: true }).count()).toBe(0);
    expect(await page.getByTestId("raw-key").count()).toBe(0);
    expect(await page.content()).not.toContain(rawKey);
    expect(problems).toEqual([]);
  }, 60_000);

  it("settings: rename the workspace, add and remove a member, create a project", async () => {
    const w = await d.t.tenant();
    const { page, problems } = await d.open();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${d.base}/settings`);
    await signIn(page, w.admin.email);
    await settled(page);

    await page.getByLabel("Workspace name").fill("Acme growth");
    // The plan is the operator's: shown, not editable.
    await page.getByText("set by the server's operator").waitFor();
    expect(await page.getByLabel("Plan tier").count()).toBe(0);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await w.get("/api/workspace", { as: "admin" })).body).toMatchObject({
      name: "Acme growth",
      tier: "free",
    });
    await page.locator(".workspace", { hasText: "Acme growth" }).waitFor();

    // Members join by invitation (invites.test.ts); one added through the API is listed here.
    const email = `new-member-${Date.now()}@example.com`;
    expect(
      (
        await w.post(
          "/api/workspace/users",
          { email, role: "member", password: "a long password" },
          { as: "admin" },
        )
      ).status,
    ).toBe(201);
    await page.reload();
    await page
      .getByRole("region", { name: "Members" })
      .getByRole("cell", { name: email, exact: true })
      .waitFor();
    // the API's own message when it refuses (inviting an email that already has a user)
    const invite = page.getByRole("form", { name: "Invite a member" });
    await invite.getByLabel("Email").fill(email);
    await invite.getByRole("button", { name: "Invite" }).click();
    await page.getByRole("alert").filter({ hasText: "Not invited" }).waitFor();
    await page.getByText(`a user with email ${email} already exists`).waitFor();
    // The member signed in somewhere: "Sign out everywhere" ends that session at once.
    const memberLogin = await d.t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email, password: "a long password" },
    });
    const memberCookie = String(memberLogin.headers["set-cookie"]).split(";")[0]!;
    await page.getByRole("button", { name: `Sign ${email} out everywhere` }).click();
    await page.getByText("Signed out of 1 session.").waitFor();
    expect(
      (await d.t.app.inject({ url: "/api/auth/me", headers: { cookie: memberCookie } })).statusCode,
    ).toBe(401);
    await page.getByRole("button", { name: `Remove ${email}` }).click();
    await page.waitForFunction((e) => !document.body.textContent?.includes(`Remove ${e}`), email);
    expect(
      (await w.get("/api/workspace/users", { as: "admin" })).body.map((u: { email: string }) => u.email),
    ).not.toContain(email);

    await page.getByLabel("New project name").fill("Blog");
    await page.getByRole("button", { name: "Create project" }).click();
    await page
      .getByRole("region", { name: "Projects" })
      .getByRole("cell", { name: "Blog", exact: true })
      .waitFor();
    expect(await page.getByLabel("Project").locator("option").allTextContents()).toContain("Blog");
    expect(problems).toEqual([]);
  }, 90_000);

  it("a member sees no admin settings", async () => {
    const e = await d.t.tenant();
    const email = `member-${Date.now()}@example.com`;
    expect(
      (await e.post("/api/workspace/users", { email, role: "member", password: PASSWORD }, { as: "admin" }))
        .status,
    ).toBe(201);
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/settings`);
    await signIn(page, email);
    await page.getByText("managed by the workspace's admins").waitFor();
    expect(await page.getByRole("heading", { name: "Members" }).count()).toBe(0);
    expect(await page.getByLabel("Project").count()).toBe(0);
    await checkPage(page, "settings-member");
    // Anyone changes their own password here; the page says how many other sessions it ended.
    const form = page.getByRole("form", { name: "Change your password" });
    await form.getByLabel("Current password").fill(PASSWORD);
    await form.getByLabel("New password").fill("a fresher passphrase");
    await form.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed; 0 other sessions signed out.").waitFor();
    const relogin = await d.t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email, password: "a fresher passphrase" },
    });
    expect(relogin.statusCode).toBe(200);
    expect(problems).toEqual([]);
  }, 60_000);

  it("works by keyboard alone: sign in, reach Settings through the navigation, create a key", async () => {
    const k = await d.t.tenant();
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/signin`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    /** "tag:accessible text" of the focused element (an input by its label). */
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLInputElement | null;
        const text = el?.labels?.[0]?.textContent ?? el?.getAttribute("aria-label") ?? el?.textContent ?? "";
        return `${el?.tagName.toLowerCase()}:${text.trim()}`;
      });
    /** Presses Tab until the focused element matches (at most 60 presses). */
    const tabTo = async (matches: (f: string) => boolean) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press("Tab");
        if (matches(await focused())) return;
      }
      throw new Error(`never reached by Tab; last focus ${await focused()}`);
    };
    await tabTo((f) => f === "input:Email");
    await page.keyboard.type(k.admin.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Overview" }).waitFor();

    // the skip link comes first and moves focus to the page
    await page.keyboard.press("Tab");
    expect(await focused()).toMatch(/^a:Skip to content/);
    await tabTo((f) => f.startsWith("a:Settings"));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await settled(page);
    await tabTo((f) => f === "input:Key name");
    await page.keyboard.type("Keyboard key");
    await page.keyboard.press("Enter");
    const raw = await page.getByTestId("raw-key").textContent();
    expect(raw).toMatch(/^svc_key_/);
    expect(problems).toEqual([]);
  }, 90_000);
});
