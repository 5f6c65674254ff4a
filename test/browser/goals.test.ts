import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkPage,
  type Dashboard,
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

describe("goals & beliefs area in Chromium", () => {
  it("defines a conversion, sets a goal on it and sees progress; edits both", async () => {
    const a = await d.t.tenant();
    const { page, problems } = await d.open();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${d.base}/goals`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Goals & beliefs", level: 1 }).waitFor();
    await settled(page);
    await page.getByText("No goals yet").waitFor();
    await page.getByText("No conversion goals yet").waitFor();
    await page.getByText("No beliefs yet").waitFor();
    await checkPage(page, "goals-empty");

    // A conversion goal, then renamed in its editor.
    await page.getByLabel("Conversion name").fill("Signup");
    await page.getByLabel("Event type").fill("signup");
    // Conditions from the condition builder; as JSON for what it cannot say.
    await page.getByRole("button", { name: "Add a condition" }).click();
    await page.getByLabel("Condition 1: property").fill("plan");
    await page.getByLabel("Condition 1: value").fill("pro");
    await page.getByRole("button", { name: "Edit as JSON" }).click();
    expect(await page.getByLabel("Conditions on the event's data (optional, JSON)").inputValue()).toBe(
      '{"plan":"pro"}',
    );
    await page.getByLabel("Conditions on the event's data (optional, JSON)").fill("{plan: pro}");
    await page.getByRole("button", { name: "Add conversion goal" }).click();
    await page.getByText("Conditions must be a JSON object").waitFor();
    await page.getByLabel("Conditions on the event's data (optional, JSON)").fill("");
    await page.getByRole("button", { name: "Add conversion goal" }).click();
    await page.getByRole("link", { name: "Signup" }).click();
    await page.getByRole("heading", { name: "Edit Signup" }).waitFor();
    await checkPage(page, "conversion-goal-editor");
    await page.getByLabel("Conversion name").fill("Signed up");
    await page.getByRole("button", { name: "Save conversion goal" }).click();
    await page.getByRole("link", { name: "Signed up" }).waitFor();

    // A goal on it: bad input shows the API's message, then a valid one.
    await page.getByLabel("Metric", { exact: true }).selectOption("Signed up");
    await page.getByLabel("Target").fill("0");
    await page.getByRole("button", { name: "Add goal" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "Not added" })
      .getByText(/target/)
      .waitFor();
    await page.getByLabel("Target").fill("4");
    await page.getByRole("button", { name: "Add goal" }).click();
    await page.getByTestId("goal-progress").getByText("0 / 4").waitFor();

    // Two signups: the goal moves (the recompute job runs when events arrive).
    await sendEvent(d.base, a, { visitorId: "s1", type: "signup" });
    await sendEvent(d.base, a, { visitorId: "s2", type: "signup" });
    await d.t.app.worker.drain();
    await page.reload();
    await settled(page);
    await page.getByTestId("goal-progress").getByText("2 / 4").waitFor();
    await checkPage(page, "goals");

    // Edit the goal: a lower target it has reached.
    await page.getByRole("link", { name: "Edit the Signed up goal" }).click();
    await page.getByRole("heading", { name: "Edit the Signed up goal" }).waitFor();
    await page.getByLabel("Target").fill("2");
    await page.getByRole("button", { name: "Save goal" }).click();
    await page.getByTestId("goal-progress").getByText("2 / 2").waitFor();
    expect(problems).toEqual([]);
  }, 120_000);

  it("adds a belief and evidence, and charts its confidence", async () => {
    const a = await d.t.tenant();
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/goals`);
    await signIn(page, a.admin.email);
    await settled(page);
    await page.getByLabel("Belief", { exact: true }).fill("Shorter forms convert better");
    await page.getByLabel("Starting confidence (%)").fill("40");
    await page.getByRole("button", { name: "Add belief" }).click();
    await page.getByRole("link", { name: "Shorter forms convert better" }).click();
    await page.getByRole("heading", { name: "Shorter forms convert better", level: 1 }).waitFor();
    await settled(page);
    await page.getByText("No evidence yet").waitFor();
    expect(await page.locator(".tile", { hasText: "Confidence" }).locator(".tile-value").textContent()).toBe(
      "40%",
    );

    await page.getByLabel("Strength (−1 to 1)").fill("0.3");
    await page.getByLabel("Sample size (optional)").fill("120");
    await page.getByRole("button", { name: "Add evidence" }).click();
    const rows = page.getByRole("region", { name: "Evidence, oldest first" }).getByRole("row");
    await rows.nth(1).waitFor();
    expect(await rows.nth(1).getByRole("cell").nth(1).textContent()).toBe("observation");
    expect(await rows.nth(1).getByRole("cell").nth(3).textContent()).toBe("120");
    const after = await page.locator(".tile", { hasText: "Confidence" }).locator(".tile-value").textContent();
    expect(after).not.toBe("40%");
    expect(await rows.nth(1).getByRole("cell").nth(4).textContent()).toBe(`40% → ${after}`);
    await page.getByRole("figure", { name: /Confidence in “Shorter forms convert better”/ }).waitFor();
    await page.locator(".chart-canvas canvas").first().waitFor();
    await checkPage(page, "belief");
    expect(problems).toEqual([]);
  }, 90_000);
});
