import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tenant } from "../helpers/app.js";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

/**
 * The Alerts page in Chromium: an alert made from the form (signups down 50% day over day), checked
 * now, and its firing listed. Signups seeded: 5 the day before yesterday, 1 yesterday (UTC).
 */
const DAY = 86_400_000;
let d: Dashboard;
let a: Tenant;
const today = Math.floor(Date.now() / DAY);
const yesterday = new Date((today - 1) * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  d = await startDashboard();
  a = await d.t.tenant();
  const signup = (day: number, k: number) => ({
    type: "track",
    event: "signup",
    anonymousId: `alert-ui-${day}-${k}`,
    timestamp: new Date(day * DAY + 36_000_000 + k * 1000).toISOString(),
  });
  const batch = [...Array.from({ length: 5 }, (_, k) => signup(today - 2, k)), signup(today - 1, 0)];
  const basic = { authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}` };
  const res = await a.post("/v1/batch", { batch }, { as: "none", headers: basic });
  expect(res.status, res.text).toBe(200);
}, 60_000);
afterAll(async () => d?.close());

describe("alerts in Chromium", () => {
  it("creates an alert on a trend series, checks it now, and lists its firing", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/alerts`);
    await signIn(page, a.admin.email);
    await page.getByText("No alert yet").waitFor();
    await page.getByRole("button", { name: "New alert" }).click();
    const form = page.getByRole("form", { name: "New alert" });
    await form.getByLabel("Name").fill("Signups dropped");
    await form.getByLabel("Event").fill("signup");
    await form.getByLabel("Checked per").selectOption("day");
    await form.getByLabel("Alert when").selectOption("change");
    await form.getByLabel("Direction").selectOption("down");
    await form.getByLabel("Percent").fill("50");
    expect(await form.getByLabel("Email").inputValue()).toBe(a.admin.email);
    await checkPage(page, "alerts-new");
    await form.getByRole("button", { name: "Create alert" }).click();

    const card = page.getByRole("region", { name: "Signups dropped" });
    await card.getByText("signup per day, down 50% or more from the bucket before").waitFor();
    await card.getByText("It has not fired yet.").waitFor();
    await card.getByRole("button", { name: "Check now" }).click();
    await card
      .getByRole("status")
      .filter({ hasText: `${yesterday}: 1 — fired` })
      .waitFor();
    const firings = card.getByRole("region", { name: "Firings of Signups dropped" });
    await firings.getByRole("row").nth(1).waitFor();
    const cells = await firings
      .getByRole("row")
      .nth(1)
      .locator("td")
      .evaluateAll((tds) => tds.map((td) => td.textContent));
    expect(cells.slice(0, 3)).toEqual([yesterday, "1", "5"]);
    await settled(page);
    await checkPage(page, "alerts-fired");

    const api = await a.get("/api/alerts");
    expect(api.body.items).toHaveLength(1);
    expect(api.body.items[0]).toMatchObject({
      name: "Signups dropped",
      query: { series: [{ event: "signup", measure: "total" }], interval: "day" },
      condition: { kind: "change", direction: "down", percent: 50 },
      notify: { emails: [a.admin.email], webhook: false },
    });
    expect(problems).toEqual([]);
  }, 120_000);
});
