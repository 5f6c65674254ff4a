import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";
import { until } from "./harness.js";
import { seedFilterProject } from "../../src/modules/analytics/filters/filter-fixture.testing.js";

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => {
  await d?.close();
});

describe("flags area in Chromium", () => {
  it("creates a flag with the condition builder, a rollout and an experiment rule; evaluates; switches; ships a winner", async () => {
    const a = await d.t.tenant();
    const e = await a.post("/api/experiments", {
      name: "Button test",
      targetUrl: "https://shop.example/checkout",
      variants: [{ name: "control" }, { name: "b" }],
    });
    const experimentId = e.body.id as string;
    await a.patch("/api/experiments", { id: experimentId, status: "running" });

    const { page, problems } = await d.open();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${d.base}/flags`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Feature flags", level: 1 }).waitFor();
    await settled(page);
    await page.getByText("No flags yet").waitFor();
    // The SDK setup carries the project's public key.
    expect(await page.getByTestId("sdk-snippet").textContent()).toContain(a.publicKey);
    // A server's setup: the secret key as a header and the project's salt for hashed ids.
    const { targetingSalt } = (await a.get("/api/flag-settings")).body as { targetingSalt: string };
    const server = await page.getByTestId("server-sdk-snippet").textContent();
    expect(server).toContain("apiHostRequestHeaders");
    expect(server).toContain(targetingSalt);
    await checkPage(page, "flags-empty");

    await page.getByRole("link", { name: "New flag" }).click();
    await page.getByRole("heading", { name: "New flag" }).waitFor();
    await page.getByLabel("Key").fill("checkout.new-button");
    await page.getByLabel("Description").fill("The new checkout button");
    await page.getByLabel("Tags").fill("checkout, web");
    // Rule 1: force true for two countries, built with the pickers.
    await page.getByRole("button", { name: "Add: force a value" }).click();
    const rule1 = page.getByRole("group", { name: "Rule 1: Force a value" });
    await rule1.getByRole("button", { name: "Add a condition" }).click();
    await rule1.getByLabel("Attribute").fill("country");
    await rule1.getByLabel("Operator").selectOption({ label: "is one of" });
    await rule1.getByLabel("Values (comma-separated)").fill("FR, DE");
    await rule1.getByLabel("Rule 1 value").selectOption("true");
    // Rule 2: a 30% rollout for plan pro.
    await page.getByRole("button", { name: "Add: percentage rollout" }).click();
    const rule2 = page.getByRole("group", { name: "Rule 2: Percentage rollout" });
    await rule2.getByRole("button", { name: "Add a condition" }).click();
    await rule2.getByLabel("Attribute").fill("plan");
    await rule2.getByLabel("Value", { exact: true }).fill("pro");
    await rule2.getByLabel("Rule 2 rollout: share of matching users").fill("30");
    await rule2.getByText("30%").waitFor();
    // Rule 3: the running experiment, one value per variant.
    await page.getByRole("button", { name: "Add: experiment" }).click();
    const rule3 = page.getByRole("group", { name: "Rule 3: Experiment" });
    await rule3.getByLabel("Rule 3 experiment").selectOption(experimentId);
    await rule3.getByLabel("Rule 3 value for b").selectOption("true");
    await checkPage(page, "flag-editor");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { name: "checkout.new-button", level: 1 }).waitFor();

    const saved = (await a.get("/api/flags/checkout.new-button")).body;
    expect(saved).toMatchObject({
      description: "The new checkout button",
      valueType: "boolean",
      defaultValue: false,
      enabled: true,
      tags: ["checkout", "web"],
    });
    expect(saved.rules.map(({ id: _, ...r }: { id: string }) => r)).toEqual([
      { type: "force", condition: { country: { $in: ["FR", "DE"] } }, value: true },
      { type: "rollout", condition: { plan: { $eq: "pro" } }, value: true, coverage: 0.3 },
      { type: "experiment", experimentId, variations: [false, true] },
    ]);

    // Evaluate for a user: a French user gets rule 1.
    await page.getByLabel("Value 1").fill("user-7");
    await page.getByRole("button", { name: "Add an attribute" }).click();
    await page.getByLabel("Attribute 2").fill("country");
    await page.getByLabel("Value 2").fill("FR");
    await page.getByRole("button", { name: "Evaluate", exact: true }).click();
    const evaluation = page.getByTestId("evaluation");
    await evaluation.getByText("rule 1 (force)").waitFor();
    expect(await evaluation.textContent()).toContain("true");
    await page.getByTestId("flag-history").getByText(a.admin.email).waitFor();
    await checkPage(page, "flag-detail");

    // An edit from the form: the default for everyone else becomes true, then back.
    await page.getByLabel("Default value").selectOption("true");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor();
    expect((await a.get("/api/flags/checkout.new-button")).body.defaultValue).toBe(true);

    // The list, loaded afresh (another flag was created through the API meanwhile): search, tag
    // filter, and the switch (the kill switch).
    await a.post("/api/flags", {
      key: "other-flag",
      valueType: "string",
      defaultValue: "x",
      tags: ["mobile"],
    });
    await page.goto(`${d.base}/flags`);
    await page.getByRole("heading", { name: "Feature flags", level: 1 }).waitFor();
    await settled(page);
    await page.getByRole("link", { name: "other-flag" }).waitFor();
    await page.getByLabel("Search").fill("checkout");
    await until(
      async () => (await page.getByRole("link", { name: "other-flag" }).count()) === 0,
      "the search",
    );
    await page.getByLabel("Search").fill("");
    await page.getByLabel("Tag").selectOption("mobile");
    await until(
      async () => (await page.getByRole("link", { name: "checkout.new-button" }).count()) === 0,
      "the tag filter",
    );
    await page.getByLabel("Tag").selectOption("");
    await checkPage(page, "flags-list");
    const toggle = page.getByRole("switch", { name: "checkout.new-button enabled" });
    expect(await toggle.getAttribute("aria-checked")).toBe("true");
    await toggle.click();
    await until(async () => (await toggle.getAttribute("aria-checked")) === "false", "the switch");
    expect((await a.get("/api/flags/checkout.new-button")).body.enabled).toBe(false);
    await toggle.click();
    await until(async () => (await a.get("/api/flags/checkout.new-button")).body.enabled === true, "back on");

    // The experiment completes with b as the winner; its results page ships it in one click.
    await d.t.app.db
      .updateTable("experiments")
      .set({ status: "completed", winner: "b", completed_at: new Date().toISOString() })
      .where("id", "=", experimentId)
      .execute();
    await page.goto(`${d.base}/experiments/${experimentId}`);
    await page.getByRole("heading", { name: "Button test", level: 1 }).waitFor();
    await settled(page);
    const ship = page.getByRole("button", { name: "Ship the winner (b) in checkout.new-button" });
    await ship.waitFor();
    await checkPage(page, "experiment-ship-winner");
    // It asks first, saying what changes; dismissed, nothing is shipped.
    const asked: string[] = [];
    page.removeAllListeners("dialog");
    page.once("dialog", (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await ship.click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain("rule 3 of checkout.new-button stops running the experiment");
    expect(asked[0]).toContain("serves true (b) to everyone it matches");
    expect((await a.get("/api/flags/checkout.new-button")).body.rules[2]).toMatchObject({
      type: "experiment",
    });
    page.once("dialog", (dialog) => void dialog.accept());
    await ship.click();
    await page.getByText("Shipped: checkout.new-button").waitFor();
    const shipped = (await a.get("/api/flags/checkout.new-button")).body;
    expect(shipped.rules[2]).toMatchObject({ type: "force", value: true });
    expect((await a.get("/api/flags/checkout.new-button/history")).body[0].action).toBe("shipped");

    await page.goto(`${d.base}/flags/checkout.new-button`);
    await page.getByTestId("flag-history").getByText("shipped").first().waitFor();
    expect(problems).toEqual([]);
  }, 180_000);

  it("targets a cohort from the condition builder; the evaluate panel answers by membership", async () => {
    const a = await d.t.tenant();
    await seedFilterProject(a);
    const cohort = await a.post("/api/cohorts", {
      name: "Buyers",
      definition: { conditions: [{ type: "event", event: "purchase" }] },
    });
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/flags/new`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "New flag" }).waitFor();
    await page.getByLabel("Key").fill("thanks-banner");
    await page.getByRole("button", { name: "Add: force a value" }).click();
    const rule = page.getByRole("group", { name: "Rule 1: Force a value" });
    await rule.getByRole("button", { name: "Add a condition" }).click();
    await rule.getByLabel("Operator").selectOption({ label: "is in cohort" });
    // a cohort is tested on id (the visitor) or leadId: the line starts on id
    expect(await rule.getByLabel("Attribute").inputValue()).toBe("id");
    await rule.getByLabel("Cohort").selectOption({ label: "Buyers" });
    // the project serves local evaluation: the line says what that means for a cohort
    await rule.getByText("matches no one").waitFor();
    // and which lead properties count: a browser's are ignored unless the cohort trusts them
    await rule.getByText("count only properties your servers set").waitFor();
    await rule.getByLabel("Rule 1 value").selectOption("true");
    await checkPage(page, "flag-editor-cohort");
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { name: "thanks-banner", level: 1 }).waitFor();
    const saved = (await a.get("/api/flags/thanks-banner")).body;
    expect(saved.rules[0]).toMatchObject({ condition: { id: { $inGroup: cohort.body.id } }, value: true });
    // filter-fixture.testing.ts: visitor "phone" bought, "laptop" did not
    for (const [visitor, answer] of [
      ["phone", "rule 1 (force)"],
      ["laptop", "default value"],
    ]) {
      await page.getByLabel("Value 1").fill(visitor!);
      await page.getByRole("button", { name: "Evaluate", exact: true }).click();
      await page.getByTestId("evaluation").getByText(answer!).waitFor();
    }
    expect(problems).toEqual([]);
  }, 90_000);
});
