import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trustCaForTests } from "../../src/modules/webhooks/sender.js";
import {
  drainUntil,
  makeSelfSignedCert,
  startReceiver,
} from "../../src/modules/webhooks/receiver.testing.js";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

let d: Dashboard;
const tls = makeSelfSignedCert();
beforeAll(async () => {
  d = await startDashboard();
  // The receiver is a local HTTPS server with a self-signed certificate.
  d.t.config.allowPrivateWebhookTargets = true;
  trustCaForTests(d.t.config, tls.cert);
}, 60_000);
afterAll(async () => d?.close());

describe("webhooks area in Chromium", () => {
  it("creates a subscription (secret shown once), shows its deliveries with attempts, retries one", async () => {
    // the first request fails, the automatic retry succeeds
    const rx = await startReceiver(tls, (n) => ({ status: n === 1 ? 500 : 200 }));
    try {
      const a = await d.t.tenant();
      const { page, problems } = await d.open();
      await page.goto(`${d.base}/webhooks`);
      await signIn(page, a.admin.email);
      await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
      await settled(page);
      await page.getByText("No subscriptions yet").waitFor();
      await checkPage(page, "webhooks-empty");

      const url = `https://localhost:${rx.port}/lift`;
      await page.getByLabel("Endpoint URL").fill(url);
      await page.getByLabel("experiment.started").check();
      await page.getByRole("button", { name: "Add subscription" }).click();
      const secret = (await page.getByTestId("webhook-secret").textContent()) ?? "";
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole("link", { name: url }).waitFor();
      expect(await page.getByRole("cell", { name: "experiment.started" }).count()).toBe(1);
      await checkPage(page, "webhooks");
      // the secret is not listed again
      expect(await page.content()).toContain(secret);
      await page.reload();
      await settled(page);
      expect(await page.content()).not.toContain(secret);

      // an event in the project: starting an experiment
      const exp = await a.post("/api/experiments", {
        name: "Headline",
        targetUrl: "https://shop.example.com/",
        variants: [{ name: "control" }, { name: "bold" }],
      });
      expect(exp.status).toBe(201);
      expect((await a.patch("/api/experiments", { id: exp.body.id, status: "running" })).status).toBe(200);
      expect(await drainUntil(d.t.app, async () => rx.received.length >= 2)).toBe(true);

      await page.getByRole("link", { name: url }).click();
      await page.getByRole("heading", { name: "Deliveries" }).waitFor();
      await settled(page);
      const delivery = page.getByTestId("delivery");
      await delivery.getByText("succeeded", { exact: true }).waitFor();
      const attempts = delivery.getByRole("list", { name: /^Attempts of / }).getByRole("listitem");
      expect(await attempts.count()).toBe(2);
      expect(await attempts.nth(0).textContent()).toContain("failed (HTTP 500)");
      expect(await attempts.nth(1).textContent()).toContain("succeeded (HTTP 200)");
      await checkPage(page, "webhooks-deliveries");

      await delivery.getByRole("button", { name: /^Retry/ }).click();
      await delivery.getByText("pending", { exact: true }).waitFor();
      expect(await drainUntil(d.t.app, async () => rx.received.length >= 3)).toBe(true);
      // the page polls while a delivery is pending
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="delivery"] ol li').length === 3,
        undefined,
        { timeout: 15_000 },
      );
      expect(await attempts.nth(2).textContent()).toContain("succeeded (HTTP 200)");
      expect(JSON.parse(rx.received[2]!.body).type).toBe("experiment.started");

      // edit the subscription: one more event; the list shows both
      const editor = page.getByRole("form", { name: "Edit the subscription" });
      await editor.getByLabel("goal.reached").check();
      await editor.getByRole("button", { name: "Save subscription" }).click();
      await editor.getByText("Saved.").waitFor();
      await page.getByRole("link", { name: "All webhooks" }).click();
      await page.getByRole("cell", { name: "experiment.started, goal.reached" }).waitFor();
      const saved = (await a.get("/api/webhooks")).body as { events: string[] }[];
      expect(saved[0]!.events.sort()).toEqual(["experiment.started", "goal.reached"]);

      // disabling shows in the list
      await page.getByRole("button", { name: `Disable ${url}` }).click();
      await page.getByTestId("webhook-status").getByText("disabled").waitFor();
      expect(problems).toEqual([]);
    } finally {
      await rx.close();
    }
  }, 180_000);

  it("shows incoming sources with their address and sets a secret without ever showing it", async () => {
    const a = await d.t.tenant();
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/webhooks`);
    await signIn(page, a.admin.email);
    await settled(page);
    const payments = page.getByRole("region", { name: "Payments webhooks" });
    await payments.waitFor();
    expect(await page.getByTestId("source-payments").textContent()).toBe("no secret");
    expect(await payments.locator("code").textContent()).toBe(
      `http://localhost:3000/api/webhooks/payments?project=${a.projectId}`,
    );
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    await payments.getByLabel("Payments signing secret").fill(secret);
    await payments.getByRole("button", { name: "Set secret" }).click();
    await page
      .getByTestId("source-payments")
      .getByText(/^secret set /)
      .waitFor();
    expect(await payments.getByLabel("Payments signing secret").inputValue()).toBe("");
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByTestId("source-crm").textContent()).toBe("no secret");
    await checkPage(page, "webhooks-sources");
    expect(problems).toEqual([]);
  }, 120_000);
});
