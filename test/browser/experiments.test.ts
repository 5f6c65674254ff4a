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
import { formatConfidence } from "../../src/platform/stats/confidence-format.js";
import { until } from "./harness.js";

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

  it("creates an experiment a feature flag runs: no page URL asked, none stored", async () => {
    const a = await d.t.tenant();
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/experiments/new`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "New experiment" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Checkout copy");
    await page.getByLabel("Runs by").selectOption("flag");
    expect(await page.getByLabel("Page URL").count()).toBe(0);
    expect(await page.getByLabel("CSS for variant").count()).toBe(0);
    await page.getByTestId("flag-runner-note").waitFor();
    await checkPage(page, "experiment-editor-flag");
    await page.getByRole("button", { name: "Create experiment" }).click();
    await page.getByRole("heading", { name: "Checkout copy", level: 1 }).waitFor();
    await page.getByText("Run by a feature flag").waitFor();
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect((await a.get(`/api/experiments/${id}`)).body).toMatchObject({ runner: "flag", targetUrl: null });
    // Editing keeps it a flag's experiment: still no page URL to fill in.
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByRole("heading", { name: "Edit Checkout copy" }).waitFor();
    expect(await page.getByLabel("Runs by").isDisabled()).toBe(true);
    expect(await page.getByLabel("Page URL").count()).toBe(0);
    await page.getByLabel("Name", { exact: true }).fill("Checkout copy v2");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Checkout copy v2", level: 1 }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

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
    // A bandit decides by its probability of being best (equal weights: a third each), never by
    // the sequential test, whose columns it does not show.
    expect(await page.getByTestId("decision-method").textContent()).toBe(
      "Decides by: bandit's probability of being best (a stop names a winner at 95%)",
    );
    expect(await page.getByTestId("probability-best").allTextContents()).toEqual(["33.3%", "33.3%", "33.3%"]);
    await page
      .getByTestId("bandit-note")
      .getByText(/never completed by significance/)
      .waitFor();
    expect(await page.getByRole("columnheader", { name: "Decided" }).count()).toBe(0);
    // Two challengers: their p-values are also shown adjusted for comparing both with control.
    expect(await page.getByRole("columnheader", { name: "p-value, adjusted (Holm)" }).count()).toBe(1);
    await checkPage(page, "experiment-bandit");
    expect(problems).toEqual([]);
  }, 120_000);

  it("shows how it decides, a failing guardrail, secondary metrics and revenue per visitor; the editor sets the goals", async () => {
    const a = await d.t.tenant();
    const goal = async (name: string, eventType: string) =>
      (await a.post("/api/conversion-goals", { name, eventType })).body.id as string;
    const purchase = await goal("Purchase", "purchase");
    const newsletter = await goal("Newsletter", "newsletter");
    const cart = await goal("Add to cart", "add_to_cart");
    const created = await a.post("/api/experiments", {
      name: "Checkout button",
      targetUrl: "https://shop.example.com/checkout",
      variants: [{ name: "control" }, { name: "b" }],
      metrics: { primary: purchase, secondary: [cart], guardrails: [newsletter] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body.metrics).toEqual({
      primary: purchase,
      secondary: [cart],
      guardrails: [{ goal: newsletter, worseWhen: "lower" }],
    });
    await a.patch("/api/experiments", { id, status: "running" });

    // 100 visitors per arm (the default minimum sample). Purchases of 25 each: 10 in control,
    // 50 in b (the sequential test decides for b); newsletter sign-ups, the guardrail: 40 in
    // control, 5 in b (failing, which blocks b's automatic win); add-to-cart: 20 and 30.
    // One batch, so the processor counts it all at once (no automatic decision on a part of it).
    const t0 = Date.now() - 60_000;
    const visitor = (arm: string, i: number) => `${arm}-${i}`;
    const ev = (arm: string, n: number, type: string, at: number, data?: Record<string, unknown>) =>
      Array.from({ length: n }, (_, i) => ({
        visitorId: visitor(arm, i),
        type,
        url: "https://shop.example.com/checkout",
        timestamp: t0 + at,
        ...(data ? { data } : {}),
      }));
    const events = [
      ...["control", "b"].flatMap((arm) => ev(arm, 100, "$exposure", 0, { experimentId: id, variant: arm })),
      ...ev("control", 40, "newsletter", 1000),
      ...ev("b", 5, "newsletter", 1000),
      ...ev("control", 20, "add_to_cart", 1500),
      ...ev("b", 30, "add_to_cart", 1500),
      // b's purchases first: counted in parts, b would lead (blocked) rather than control win early.
      ...ev("b", 50, "purchase", 2000, { revenue: 25 }),
      ...ev("control", 10, "purchase", 2100, { revenue: 25 }),
    ];
    const res = await fetch(`${d.base}/api/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      // the secret key: a server's batch may hold all of them (a public key's holds 100)
      body: JSON.stringify({ projectKey: a.apiKey, events }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).received).toBe(events.length);
    const counted = await until(async () => {
      const e = (await a.get(`/api/experiments/${id}`)).body;
      return e.results.totalExposures === 200 && e.results.totalConversions === 60 && e;
    }, "the events to be counted");
    // Still running: b is decided by the sequential test, but its failing guardrail blocks the win.
    expect(counted.status).toBe("running");
    expect(counted.results.variants[1].sequential.decided).toBe(true);

    const { page, problems } = await d.open();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${d.base}/experiments/${id}`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Checkout button", level: 1 }).waitFor();
    await settled(page);
    expect(await page.getByTestId("decision-method").textContent()).toBe("Decides by: sequential test");
    const table = page.getByRole("region", { name: "Results per variant" });
    const b = table.getByRole("row").filter({ has: page.getByRole("cell", { name: "b", exact: true }) });
    const control = table.getByRole("row").filter({ hasText: "control (control)" });
    expect(await b.getByTestId("sequential-decided").textContent()).toBe("yes, blocked");
    // One confidence figure: the banner says what the table and the tile show, and a test
    // 99.9…% sure does not read 100%.
    const figure = formatConfidence(counted.results.verdict.confidence);
    expect(counted.results.verdict.confidence).toBeLessThan(1);
    expect(await page.getByTestId("verdict-text").textContent()).toBe(
      `b wins with ${figure} confidence; a failing guardrail keeps it from completing.`,
    );
    expect(await b.getByTestId("sequential-confidence").textContent()).toBe(figure);
    expect(
      await page
        .locator(".tile", { hasText: "Confidence (95% decides)" })
        .locator(".tile-value")
        .textContent(),
    ).toBe(figure);
    // The sequential figures sit beside the fixed-horizon ones, its interval under its chance.
    for (const group of ["Fixed-horizon (one look)", "Sequential (any look)"])
      expect(await table.getByRole("columnheader", { name: group }).count()).toBe(1);
    expect(await b.getByTestId("sequential-interval").textContent()).toMatch(/^\+\d+\.\d% to \+\d+\.\d%$/);

    // Revenue per visitor: 50 × 25 over 100 visitors in b, 10 × 25 over 100 in control; the
    // Welch 95% interval of the difference, by hand (each visitor spent 25 or nothing).
    expect(await b.getByTestId("revenue-per-visitor").textContent()).toBe("12.50");
    expect(await control.getByTestId("revenue-per-visitor").textContent()).toBe("2.50");
    const variance = (buyers: number) => (buyers * 25 ** 2 - 100 * ((buyers * 25) / 100) ** 2) / 99;
    const half = 1.959963984540054 * Math.sqrt(variance(50) / 100 + variance(10) / 100);
    const fmt = (n: number) => `+${n.toFixed(2)}`;
    expect(await b.getByTestId("revenue-interval").textContent()).toBe(
      `${fmt(10 - half)} to ${fmt(10 + half)}`,
    );

    // The guardrail: one row per challenger, named through the conversion goals.
    const guardrail = page.getByTestId("guardrail-row");
    expect(await guardrail.count()).toBe(1);
    expect(await guardrail.getByRole("cell").allTextContents()).toEqual([
      "Newsletter (worse when lower)",
      "b",
      "failing",
    ]);
    expect(await guardrail.getByTestId("guardrail-status").textContent()).toBe("failing");
    await page.getByText("blocks that variant's automatic win").waitFor();

    // The secondary goal: add-to-cart 20% in control, 30% in b.
    const secondary = page.getByTestId("secondary-metric");
    await secondary.getByRole("heading", { name: "Add to cart" }).waitFor();
    const secondaryB = secondary
      .getByRole("row")
      .filter({ has: page.getByRole("cell", { name: "b", exact: true }) });
    expect(await secondaryB.getByRole("cell").allTextContents()).toEqual([
      "b",
      "30",
      "30.00%",
      "+50.0%",
      expect.stringMatching(/^0\.\d{3}$/),
    ]);
    await checkPage(page, "experiment-guardrails");

    // Completed by hand: the guardrail still blocks b, and the single look names no winner either.
    await page.getByRole("button", { name: "Complete" }).click();
    await page.getByTestId("experiment-status").getByText("completed").waitFor();
    expect(await page.getByTestId("decision-method").textContent()).toBe("Stopped by hand, no winner");
    expect(await page.getByTestId("decision-winner").count()).toBe(0);
    expect((await a.get(`/api/experiments/${id}`)).body.results.decision).toMatchObject({
      method: "manual",
      winner: null,
    });

    // The editor: the primary goal, a secondary goal and a guardrail, picked from the goals.
    await page.goto(`${d.base}/experiments/new`);
    await page.getByRole("heading", { name: "New experiment" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Newsletter box");
    await page.getByLabel("Page URL").fill("https://shop.example.com/");
    await page.getByLabel("Primary goal (decides the experiment)").selectOption({ label: "Purchase" });
    // The primary goal has no other role to pick.
    expect(await page.getByLabel("Purchase", { exact: true }).count()).toBe(0);
    await page
      .getByLabel("Newsletter", { exact: true })
      .selectOption({ label: "Guardrail: worse when lower" });
    await page.getByLabel("Add to cart", { exact: true }).selectOption({ label: "Secondary (reported)" });
    await checkPage(page, "experiment-editor-goals");
    await page.getByRole("button", { name: "Create experiment" }).click();
    await page.getByRole("heading", { name: "Newsletter box", level: 1 }).waitFor();
    const newId = new URL(page.url()).pathname.split("/").pop()!;
    expect((await a.get(`/api/experiments/${newId}`)).body.metrics).toEqual({
      primary: purchase,
      secondary: [cart],
      guardrails: [{ goal: newsletter, worseWhen: "lower" }],
    });

    // Editing sends only what changed: the secondary goal goes, the guardrail stays.
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByRole("heading", { name: "Edit Newsletter box" }).waitFor();
    expect(await page.getByLabel("Newsletter", { exact: true }).inputValue()).toBe("guardrail-lower");
    await page.getByLabel("Add to cart", { exact: true }).selectOption({ label: "Not measured" });
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("link", { name: "Edit" }).waitFor();
    await until(
      async () => (await a.get(`/api/experiments/${newId}`)).body.metrics.secondary.length === 0,
      "the secondary goal to be removed",
    );
    expect((await a.get(`/api/experiments/${newId}`)).body.metrics).toEqual({
      primary: purchase,
      secondary: [],
      guardrails: [{ goal: newsletter, worseWhen: "lower" }],
    });
    expect(problems).toEqual([]);
  }, 120_000);
});
