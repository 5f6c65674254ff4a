import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkPage,
  type Dashboard,
  sendEvent,
  settled,
  signIn,
  startDashboard,
  USER_AGENT,
} from "./dashboard-harness.js";

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

const stitch = (publicKey: string, visitorId: string, email: string, traits?: Record<string, unknown>) =>
  fetch(`${d.base}/api/identity/stitch`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": USER_AGENT },
    body: JSON.stringify({ projectKey: publicKey, visitorId, email, traits }),
  });

describe("visitors & leads area in Chromium", () => {
  it("lists and searches leads, pages with load more, opens a lead and a visitor's journey, shows live events", async () => {
    const a = await d.t.tenant();
    expect((await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" })).status).toBe(
      201,
    );
    await sendEvent(d.base, a, {
      visitorId: "v-news",
      url: "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
    });
    expect((await stitch(a.publicKey, "v-news", "ada@example.com", { company: "Acme" })).status).toBe(200);
    await sendEvent(d.base, a, {
      visitorId: "v-news",
      type: "purchase",
      url: "https://shop.example.com/thanks",
      data: { revenue: 40, $set: { plan: "pro", seats: 3 } },
    });
    // 26 more leads: the first page holds 25.
    for (let i = 0; i < 26; i++) {
      await sendEvent(d.base, a, { visitorId: `v-bulk-${i}` });
      expect((await stitch(a.publicKey, `v-bulk-${i}`, `bulk${i}@example.org`)).status).toBe(200);
    }
    await sendEvent(d.base, a, { visitorId: "v-search", referrer: "https://www.google.com/" });

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/visitors`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Visitors & leads", level: 1 }).waitFor();
    await settled(page);
    const leadRows = page.getByRole("region", { name: "Leads", exact: true }).getByRole("row");
    expect(await leadRows.count()).toBe(26); // header + 25
    await page.getByRole("button", { name: "Load more" }).click();
    await page.getByRole("link", { name: "ada@example.com" }).waitFor();
    expect(await leadRows.count()).toBe(28); // header + 27
    expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0);
    await page.getByRole("link", { name: "v-search" }).first().waitFor(); // live events
    await checkPage(page, "visitors");

    // Search, kept in the URL.
    await page.getByLabel("Email or lead id").fill("ada");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/q=ada/);
    // The new search replaces the list once its answer is in.
    await expect.poll(() => leadRows.count(), { timeout: 10_000 }).toBe(2);
    await page.getByLabel("Email or lead id").fill("nobody-here");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByText("No lead matches “nobody-here”").waitFor();
    await page.goto(`${d.base}/visitors?q=ada`);
    await settled(page);

    // The lead's page: totals and the journey with its first touch.
    await page.getByRole("link", { name: "ada@example.com" }).click();
    await page.getByRole("heading", { name: "ada@example.com", level: 1 }).waitFor();
    await settled(page);
    expect(await page.getByTestId("first-channel").textContent()).toBe("Email");
    const timeline = page.getByRole("list", { name: "Events, oldest first" });
    expect(await timeline.getByText("purchase").count()).toBe(1);
    expect(await timeline.getByText("pageview").count()).toBe(1);
    expect(await page.locator(".tile", { hasText: "Revenue" }).locator(".tile-value").textContent()).toBe(
      "40.00",
    );
    // Its properties: the stitch's traits and the purchase's $set.
    const props = page.getByRole("region", { name: "Lead properties", exact: true }).getByRole("row");
    expect(await props.allTextContents()).toEqual(["PropertyValue", "companyAcme", "planpro", "seats3"]);
    await checkPage(page, "lead");

    // A visitor's journey from the live events.
    await page.goto(`${d.base}/visitors`);
    await settled(page);
    await page.getByRole("link", { name: "v-search" }).first().click();
    await page.getByRole("heading", { name: "Visitor v-search", level: 1 }).waitFor();
    await settled(page);
    expect(await page.getByTestId("first-channel").textContent()).toBe("Organic search");
    await checkPage(page, "journey");

    // Live: an event sent while the page is open shows up without a reload.
    await page.goto(`${d.base}/visitors`);
    await settled(page);
    await sendEvent(d.base, a, { visitorId: "v-live", type: "signup" });
    await page.getByRole("link", { name: "v-live" }).waitFor({ timeout: 15_000 });
    expect(problems).toEqual([]);
  }, 120_000);

  it("an admin erases a lead from its page: the counts drop and the lead is gone", async () => {
    const a = await d.t.tenant();
    await sendEvent(d.base, a, { visitorId: "v-erase", url: "https://shop.example.com/" });
    await sendEvent(d.base, a, { visitorId: "v-stays", url: "https://shop.example.com/" });
    expect((await stitch(a.publicKey, "v-erase", "grace@example.com")).status).toBe(200);
    const lead = (await a.get("/api/leads?q=grace")).body.items[0];
    expect((await a.get("/api/analytics/summary?period=7d")).body).toMatchObject({ visitors: 2, leads: 1 });

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/visitors/leads/${lead.id}`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "grace@example.com", level: 1 }).waitFor();
    await settled(page);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Erase lead" }).click();
    await page.getByText("Lead erased").waitFor();
    expect(await page.getByText(/Removed 1 events, 1 visitors/).count()).toBe(1);
    await checkPage(page, "lead-erased");

    expect((await a.get(`/api/leads/${lead.id}`)).status).toBe(404);
    expect((await a.get("/api/analytics/summary?period=7d")).body).toMatchObject({ visitors: 1, leads: 0 });
    const record = (await a.get("/api/erasures")).body.items[0];
    expect(record).toMatchObject({ subject: "lead", erasedBy: { kind: "user", id: a.admin.id } });

    // The record, in Settings: no email, the admin who asked.
    await page.goto(`${d.base}/settings`);
    const rows = page.getByRole("region", { name: "Erasures", exact: true }).getByRole("row");
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    const cells = await rows.nth(1).getByRole("cell").allTextContents();
    expect(cells.slice(1)).toEqual(["lead", `user ${a.admin.id}`, "1", "1", "0"]);
    expect(await page.getByText("grace@example.com").count()).toBe(0);
    await checkPage(page, "settings-erasures");
    expect(problems).toEqual([]);
  }, 60_000);
});
