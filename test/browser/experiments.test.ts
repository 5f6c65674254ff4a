import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
let site: Server;
let siteUrl: string;
let snippetTag = "";
beforeAll(async () => {
  d = await startDashboard();
  // The customer's site on another origin, with the snippet in its head.
  site = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><html><head>${snippetTag}</head><body><h1>Plans</h1></body></html>`);
  });
  await new Promise<void>((r) => site.listen(0, "localhost", r));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await new Promise((r) => site?.close(r));
  await d?.close();
});

describe("experiments area in Chromium", () => {
  it("creates and starts an experiment, counts a snippet exposure, edits, pauses, completes, filters", async () => {
    const a = await d.t.tenant();
    snippetTag = `<script src="${d.base}/api/svc-js?key=${a.publicKey}"></script>`;
    const { page, problems } = await d.open();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${d.base}/experiments`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Experiments", level: 1 }).waitFor();
    await settled(page);
    await page.getByText("No experiments yet").waitFor();
    await checkPage(page, "experiments-empty");

    // Create in the editor.
    await page.getByRole("link", { name: "New experiment" }).click();
    await page.getByRole("heading", { name: "New experiment" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Plan headline");
    await page.getByLabel("Page URL").fill(`${siteUrl}/plans`);
    await page.getByLabel("Variant 2 name").fill("red");
    await page.getByLabel("CSS for red").fill("h1 { color: rgb(255, 0, 0); }");
    await checkPage(page, "experiment-editor");
    await page.getByRole("button", { name: "Create experiment" }).click();
    await page.getByRole("heading", { name: "Plan headline", level: 1 }).waitFor();
    expect(await page.getByTestId("experiment-status").textContent()).toBe("draft");
    await page.getByText("No exposures yet").waitFor();

    // Start: the only move a draft offers.
    expect(await page.getByRole("button", { name: "Pause" }).count()).toBe(0);
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByTestId("experiment-status").getByText("running").waitFor();

    // A visitor opens the customer's page: the snippet shows a variant and reports the exposure.
    const visitor = await d.browser.newContext({ userAgent: USER_AGENT });
    const sitePage = await visitor.newPage();
    await sitePage.goto(`${siteUrl}/plans`);
    await sitePage.waitForFunction(
      () =>
        document.cookie.includes("") &&
        performance.getEntriesByType("resource").some((e) => e.name.includes("/api/events")),
      undefined,
      { timeout: 15_000 },
    );
    const colour = await sitePage.evaluate(() => getComputedStyle(document.querySelector("h1")!).color);
    const variant = colour === "rgb(255, 0, 0)" ? "red" : "control";
    await visitor.close();

    // The results page counts it.
    for (let i = 0; i < 40; i++) {
      await page.reload();
      await settled(page);
      if ((await page.getByRole("cell", { name: "1", exact: true }).count()) > 0) break;
      await page.waitForTimeout(250);
    }
    const row = page.getByRole("row").filter({ hasText: variant === "red" ? "red" : "control (control)" });
    expect(await row.getByRole("cell").nth(1).textContent()).toBe("1");
    await checkPage(page, "experiment-results");

    // Edit: the name changes; variants are fixed once it has run.
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByRole("heading", { name: "Edit Plan headline" }).waitFor();
    expect(await page.getByLabel("CSS for red").isDisabled()).toBe(true);
    await page.getByLabel("Name", { exact: true }).fill("Plan headline v2");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Plan headline v2", level: 1 }).waitFor();

    // Pause, then complete; a completed experiment offers nothing more.
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByTestId("experiment-status").getByText("paused").waitFor();
    expect(await page.getByRole("button", { name: "Resume" }).count()).toBe(1);
    await page.getByRole("button", { name: "Complete" }).click();
    await page.getByTestId("experiment-status").getByText("completed").waitFor();
    expect(await page.getByRole("button", { name: /Start|Pause|Resume|Complete/ }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Edit" }).count()).toBe(0);

    // The list filter, deep-linked.
    await page.goto(`${d.base}/experiments?status=completed`);
    await settled(page);
    await page.getByRole("link", { name: "Plan headline v2" }).waitFor();
    await page.getByLabel("Status").selectOption("running");
    await page.getByText("No running experiments").waitFor();
    await page.getByLabel("Status").selectOption("");
    await page.getByRole("link", { name: "Plan headline v2" }).waitFor();
    await checkPage(page, "experiments");
    expect(problems).toEqual([]);
  }, 120_000);

  it("warns about a sample ratio mismatch and charts a bandit's traffic share", async () => {
    const a = await d.t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const ab = await a.post("/api/experiments", {
      name: "Lopsided",
      targetUrl: "https://shop.example.com/",
      variants: [{ name: "control" }, { name: "b" }],
    });
    await a.patch("/api/experiments", { id: ab.body.id, status: "running" });
    // 150 exposures to control, 50 to b, against a planned 50/50 split.
    const send = (i: number, variant: string) =>
      sendEvent(d.base, a, {
        visitorId: `srm-${i}`,
        type: "$exposure",
        data: { experimentId: ab.body.id, variant },
      });
    for (let i = 0; i < 200; i++) await send(i, i < 150 ? "control" : "b");
    // Every fifth visitor of each converts.
    for (let i = 0; i < 200; i += 5) await sendEvent(d.base, a, { visitorId: `srm-${i}`, type: "signup" });
    const bandit = await a.post("/api/experiments", {
      name: "Arms",
      mode: "bandit",
      targetUrl: "https://shop.example.com/",
      variants: [{ name: "a" }, { name: "b" }, { name: "c" }],
    });
    await a.patch("/api/experiments", { id: bandit.body.id, status: "running" });
    // One exposure per arm (weights stay equal through the burn-in), so the results table shows.
    for (const variant of ["a", "b", "c"])
      await sendEvent(d.base, a, {
        visitorId: `arm-${variant}`,
        type: "$exposure",
        data: { experimentId: bandit.body.id, variant },
      });

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/experiments/${ab.body.id}`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Lopsided", level: 1 }).waitFor();
    for (let i = 0; i < 40 && (await page.getByTestId("srm-warning").count()) === 0; i++) {
      await page.waitForTimeout(250);
      await page.reload();
      await settled(page);
    }
    await page.getByTestId("srm-warning").getByText("Sample ratio mismatch").waitFor();
    await page.getByRole("figure", { name: /Uplift of each variant/ }).waitFor();
    await checkPage(page, "experiment-srm");
    // One challenger: no adjustment to show.
    expect(await page.getByRole("columnheader", { name: "p-value, adjusted (Holm)" }).count()).toBe(0);

    await page.goto(`${d.base}/experiments/${bandit.body.id}`);
    await page.getByRole("heading", { name: "Arms", level: 1 }).waitFor();
    await page.getByRole("figure", { name: /Share of traffic per variant/ }).waitFor();
    expect(await page.getByText("33.3% now").count()).toBe(3);
    // Two challengers: their p-values are also shown adjusted for comparing both with control.
    expect(await page.getByRole("columnheader", { name: "p-value, adjusted (Holm)" }).count()).toBe(1);
    await checkPage(page, "experiment-bandit");
    expect(problems).toEqual([]);
  }, 120_000);
});
