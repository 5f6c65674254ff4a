import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

/**
 * The flag editor's hashing control: GrowthBook's (the default) or PostHog's, with the line that
 * says what a change does, saved and read back through the API, and chosen when a flag is created.
 */
let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => {
  await d?.close();
});

describe("the flag editor's hashing control in Chromium", () => {
  it("switches a flag to PostHog's hashing and back, saying who may change sides; a new flag starts with PostHog's", async () => {
    const a = await d.t.tenant();
    expect(
      (
        await a.post("/api/flags", {
          key: "moved-rollout",
          valueType: "boolean",
          defaultValue: false,
          rules: [{ type: "rollout", value: true, coverage: 0.3 }],
        })
      ).status,
    ).toBe(201);
    const { page } = await d.open();
    await page.goto(`${d.base}/flags/moved-rollout`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "moved-rollout", level: 1 }).waitFor();
    await settled(page);

    const hashing = page.getByLabel("Hashing");
    expect(await hashing.inputValue()).toBe("growthbook");
    // The line tied to the control says what a change does.
    const hint = await page.locator(`[id="${await hashing.getAttribute("aria-describedby")}"]`).textContent();
    expect(hint).toContain("flip sides of a rollout");
    await hashing.selectOption("posthog");
    await checkPage(page, "flag-hashing");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor();
    expect((await a.get("/api/flags/moved-rollout")).body.hashing).toBe("posthog");

    // Loaded afresh, the page shows what the API holds; back to GrowthBook's.
    await page.reload();
    await page.getByRole("heading", { name: "moved-rollout", level: 1 }).waitFor();
    await settled(page);
    expect(await page.getByLabel("Hashing").inputValue()).toBe("posthog");
    await page.getByLabel("Hashing").selectOption("growthbook");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor();
    expect((await a.get("/api/flags/moved-rollout")).body.hashing).toBe("growthbook");

    // A new flag moved from PostHog is created with PostHog's hashing.
    await page.goto(`${d.base}/flags/new`);
    await page.getByRole("heading", { name: "New flag" }).waitFor();
    await page.getByLabel("Key").fill("from-posthog");
    await page.getByLabel("Hashing").selectOption("posthog");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { name: "from-posthog", level: 1 }).waitFor();
    expect((await a.get("/api/flags/from-posthog")).body.hashing).toBe("posthog");
  }, 60_000);
});
