import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGoogleAdsFake } from "../fakes/google-ads.js";
import { consent, type FakePlatform } from "../fakes/server.js";
import { STRIPE_KEY, startStripeFake } from "../fakes/stripe.js";
import { platformConfig } from "../../src/modules/connectors/connectors.testing.js";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

let d: Dashboard;
let gads: FakePlatform;
let stripe: FakePlatform;
beforeAll(async () => {
  d = await startDashboard();
  const client = { id: "gads-client", secret: "gads-secret" };
  gads = await startGoogleAdsFake(client);
  stripe = await startStripeFake();
  // The OAuth callback must come back to this server (random port), and the platforms are fakes.
  d.t.config.publicUrl = d.base;
  Object.assign(
    d.t.config.platforms,
    platformConfig([
      ["search_ads", gads, client],
      ["payments", stripe],
    ]).platforms,
  );
}, 60_000);
afterAll(async () => {
  await d?.close();
  await gads?.close();
  await stripe?.close();
});

describe("integrations area in Chromium", () => {
  it("connects through the platform's OAuth, syncs, shows status, last sync and metrics by campaign, disconnects", async () => {
    const a = await d.t.tenant();
    const { page, problems } = await d.open();
    page.on("dialog", (dlg) => void dlg.accept());

    await page.goto(`${d.base}/integrations`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Integrations", level: 1 }).waitFor();
    await settled(page);
    expect(await page.getByTestId("status-search_ads").textContent()).toBe("Not connected");
    expect(await page.getByRole("button", { name: "Sync now" }).isDisabled()).toBe(true);
    await checkPage(page, "integrations-empty");

    await page.getByRole("link", { name: "Connect Search ads" }).click();
    // The browser is at the platform's consent screen (the fake has none to show): "Allow" sends
    // it back to the callback with a code, as the platform would.
    await page.waitForURL((u) => u.href.startsWith(`${gads.baseUrl}/o/oauth2/v2/auth`));
    const authorize = new URL(page.url());
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${d.base}/api/connectors/search_ads/callback`);
    const { code, state } = consent(gads, authorize.toString());
    const back = new URL(authorize.searchParams.get("redirect_uri")!);
    back.searchParams.set("code", code);
    back.searchParams.set("state", state);
    await page.goto(back.toString());
    await page.waitForURL(/\/integrations\?connected=search_ads$/);
    await page.getByRole("status").getByText("Connected Search ads.").waitFor();
    await settled(page);
    expect(await page.getByTestId("status-search_ads").textContent()).toBe("Connected");
    expect(await page.getByTestId("last-sync-search_ads").textContent()).toBe("never");
    await page.getByText("Acme Search").waitFor();
    await checkPage(page, "integrations-connected");

    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByTestId("sync-status").waitFor();
    // the worker is not running in tests: run the sync's jobs while the page polls its progress
    await d.t.app.worker.drain();
    await page.getByTestId("sync-status").getByText("Sync completed.").waitFor({ timeout: 15_000 });
    await page.getByText(/Search ads: done \(4 rows/).waitFor();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="last-sync-search_ads"]')?.textContent !== "never",
      undefined,
      { timeout: 10_000 },
    );
    expect(await page.getByTestId("last-sync-search_ads").textContent()).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );

    await page.getByRole("link", { name: "Metrics of Search ads" }).click();
    await page.getByRole("heading", { name: "Search ads metrics" }).waitFor();
    await settled(page);
    const campaigns = page.getByRole("region", { name: "Campaigns" });
    await campaigns.getByRole("cell", { name: "Generic - Search" }).waitFor();
    expect(await campaigns.getByRole("cell", { name: "Brand - Search" }).count()).toBe(1);
    await checkPage(page, "integrations-metrics");
    await page.getByText("7 days", { exact: true }).click();
    await page.waitForURL(/period=7d/);
    await settled(page);
    const spend = page.locator(".tile", { has: page.locator(".tile-label", { hasText: /^Spend$/ }) });
    // The 7-day answer replaces the 30-day one once it is in: wait for it rather than race it.
    await expect.poll(() => spend.locator(".tile-value").textContent(), { timeout: 10_000 }).toBe("50");
    expect(await campaigns.getByRole("row").nth(1).textContent()).toContain("Generic - Search");

    await page.getByRole("link", { name: "All integrations" }).click();
    await settled(page);
    await page.getByRole("button", { name: "Disconnect Search ads" }).click();
    await page.getByTestId("status-search_ads").getByText("Not connected", { exact: true }).waitFor();
    expect((await a.get("/api/connectors", { as: "admin" })).body).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);

  it("connects payments with an API key; shows the API's refusal of a bad key and the ?error= landing", async () => {
    const a = await d.t.tenant();
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/integrations?error=access_denied`);
    await signIn(page, a.admin.email);
    await page
      .getByRole("alert")
      .getByText("Could not connect: the consent was declined on the platform.")
      .waitFor();
    await settled(page);
    await checkPage(page, "integrations-error");

    const payments = page.getByRole("region", { name: "Payments" });
    await payments.getByLabel("Restricted API key").fill("rk_test_wrong");
    await payments.getByRole("button", { name: "Connect with key" }).click();
    const refusal = payments.getByRole("alert");
    await refusal.getByText("Not connected").waitFor();
    const message = (await refusal.textContent()) ?? "";
    expect(message.length).toBeGreaterThan("Not connected".length);

    await payments.getByLabel("Restricted API key").fill(STRIPE_KEY);
    await payments.getByRole("button", { name: "Connect with key" }).click();
    // exact: "Connected" is also a substring of "Not connected"
    await page.getByTestId("status-payments").getByText("Connected", { exact: true }).waitFor();
    await payments.getByRole("link", { name: "Metrics of Payments" }).waitFor();
    await payments.getByRole("button", { name: "Disconnect Payments" }).waitFor();
    expect(problems).toEqual([]);
  }, 120_000);
});
