import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPage, type Dashboard, PASSWORD, settled, signIn, startDashboard } from "./dashboard-harness.js";

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

describe("email area in Chromium", () => {
  it("mints a transactional key, sends a sandbox email with it, and shows the send with its timeline", async () => {
    const a = await d.t.tenant({ tier: "scale" });
    const { page, problems } = await d.open();
    page.on("dialog", (dlg) => void dlg.accept());
    await page.goto(`${d.base}/email/keys`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Transactional API keys" }).waitFor();
    await settled(page);
    await page.getByText("No transactional keys").waitFor();
    await checkPage(page, "email-keys-empty");

    await page.getByLabel("Key name").fill("checkout backend");
    await page.getByRole("button", { name: "Create key" }).click();
    const rawKey = (await page.getByTestId("tx-raw-key").textContent()) ?? "";
    expect(rawKey).toMatch(/^svc_tx_/);
    await page.getByRole("cell", { name: "checkout backend", exact: true }).waitFor();
    await checkPage(page, "email-keys");

    // the key works: a sandbox send from the page, as a customer's server would send it
    const sent = await page.evaluate(async (key) => {
      const res = await fetch("/api/v1/transactional/send", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ to: "ada@sandbox.svc.test", subject: "Your receipt", text: "Thanks!" }),
      });
      return { status: res.status, body: await res.json() };
    }, rawKey);
    expect(sent.status).toBe(200);
    expect(sent.body.sandbox).toBe(true);
    await d.t.app.worker.drain();

    await page
      .getByRole("navigation", { name: "Email sections" })
      .getByRole("link", { name: "Recent sends" })
      .click();
    await settled(page);
    await page.getByRole("cell", { name: "Your receipt" }).waitFor();
    expect(await page.getByRole("cell", { name: "ada@sandbox.svc.test" }).count()).toBe(1);
    await checkPage(page, "email-sends");
    await page.getByRole("link", { name: "ada@sandbox.svc.test" }).click();
    await page.waitForURL(new RegExp(`/email/sends/${sent.body.send_id}$`));
    await settled(page);
    const timeline = page.getByRole("list", { name: "Delivery timeline" });
    await timeline.waitFor();
    expect(await timeline.getByRole("listitem").count()).toBeGreaterThan(0);
    expect(await page.getByTestId("send-status").textContent()).toContain("(sandbox)");
    await checkPage(page, "email-send-detail");

    // revoking the key stops it at once
    await page.goto(`${d.base}/email/keys`);
    await page.getByRole("button", { name: "Revoke checkout backend" }).click();
    await page.getByText(/^revoked /).waitFor();
    const after = await page.evaluate(async (key) => {
      const res = await fetch("/api/v1/transactional/send", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ to: "ada@sandbox.svc.test", subject: "again", text: "x" }),
      });
      return res.status;
    }, rawKey);
    expect(after).toBe(401);
    expect(problems).toEqual([]);
  }, 180_000);

  it("edits a template with a live preview rendered by the API, saves it; manages the suppression list", async () => {
    const a = await d.t.tenant();
    const { page, problems } = await d.open();
    page.on("dialog", (dlg) => void dlg.accept());
    await page.goto(`${d.base}/email`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Templates" }).waitFor();
    await settled(page);
    await checkPage(page, "email-templates");

    await page.getByLabel("New template name").fill("Order shipped");
    await page.getByRole("button", { name: "Create template" }).click();
    await page.waitForURL(/\/email\/templates\/.+/);
    await settled(page);
    await page.getByTestId("preview-subject").getByText("Order shipped").waitFor();

    // an unsaved edit is rendered by the API, in the subject and in the HTML frame
    await page.getByLabel("Slot subject").fill("Shipped: {{orderId}}");
    await page.getByLabel("Slot body").fill("Hello {{name}}, parcel on its way");
    await page.getByTestId("preview-subject").getByText("Shipped:").waitFor();
    await page.getByText("Sample variables").click();
    await page.getByLabel("Variable orderId").fill("A-17");
    await page.getByTestId("preview-subject").getByText("Shipped: A-17").waitFor();
    const frame = page.frameLocator('iframe[title="HTML preview"]');
    await frame.getByText("parcel on its way").waitFor();
    await checkPage(page, "email-template-editor");

    // a block the compiler refuses shows the API's message; removing it renders again
    await page.getByLabel("New block").selectOption("button");
    await page.getByRole("button", { name: "Add block" }).click();
    await page.getByLabel("Block 3 label").fill("");
    await page.getByRole("alert").getByText("Cannot render").waitFor();
    // the button block's own field: the 400 names the branch the block's type picks
    expect(await page.getByRole("alert").textContent()).toContain("body.blocks[2].label is required");
    await page.getByRole("button", { name: "Remove block 3" }).click();
    await page.getByRole("alert").waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Save template" }).click();
    await page.getByText("Saved.").waitFor();
    const saved = (await a.get("/api/communications", { as: "admin" })).body.find(
      (c: { name: string }) => c.name === "Order shipped",
    );
    expect(saved.slots.subject).toBe("Shipped: {{orderId}}");

    await page
      .getByRole("navigation", { name: "Email sections" })
      .getByRole("link", { name: "Suppressions" })
      .click();
    await settled(page);
    await page.getByText("No suppressed addresses").waitFor();
    await page.getByRole("textbox", { name: "Address" }).fill("Bounced@Example.com");
    await page.getByLabel("Note (optional)").fill("asked by phone");
    await page.getByRole("button", { name: "Suppress" }).click();
    await page.getByRole("cell", { name: "bounced@example.com", exact: true }).waitFor();
    expect(await page.getByRole("cell", { name: "Added by hand" }).count()).toBe(1);
    await checkPage(page, "email-suppressions");
    await page.getByRole("button", { name: "Lift bounced@example.com" }).click();
    await page.getByText("No suppressed addresses").waitFor();
    expect((await a.get("/api/transactional/suppressions", { as: "admin" })).body).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);

  it("a member reads templates and previews them, but neither edits them nor sees keys", async () => {
    const a = await d.t.tenant();
    const email = `member-${Date.now()}@example.com`;
    expect(
      (await a.post("/api/workspace/users", { email, role: "member", password: PASSWORD }, { as: "admin" }))
        .status,
    ).toBe(201);
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/email`);
    await signIn(page, email);
    await settled(page);
    expect(await page.getByRole("button", { name: "Create template" }).count()).toBe(0);
    await page.getByRole("region", { name: "Email templates" }).getByRole("link").first().click();
    await page.waitForURL(/\/email\/templates\/.+/);
    await settled(page);
    await page.getByTestId("preview-subject").waitFor();
    expect(await page.getByLabel("Slot subject").isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Save template" }).count()).toBe(0);
    await checkPage(page, "email-template-member");
    await page
      .getByRole("navigation", { name: "Email sections" })
      .getByRole("link", { name: "API keys" })
      .click();
    await page.getByText("managed by the workspace's admins").waitFor();
    expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0);
    expect(problems).toEqual([]);
  }, 120_000);
});
