import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { txTenant } from "./email.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const order = {
  id: "order-shipped",
  name: "Order shipped",
  commType: "transactional",
  slots: {
    subject: "Order {{orderId}} shipped",
    headline: "Hi {{user.firstName}}",
    ctaLabel: "Track it",
    ctaUrl: "{{trackUrl}}",
  },
  blocks: [
    { type: "heading", text: "{{headline}}" },
    { type: "text", text: "Your order {{orderId}} is on its way.\n\nThanks!" },
    { type: "button", label: "{{ctaLabel}}", url: "{{ctaUrl}}" },
    { type: "code", value: "{{pickupCode}}", caption: "Pickup code" },
    { type: "divider" },
  ],
};

describe("/api/communications", () => {
  it("creates, reads, updates, previews, sends and deletes a workspace template", async () => {
    const a = await txTenant(t);
    const created = await a.post("/api/communications", order, { as: "admin" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: "order-shipped", commType: "transactional", builtIn: false });
    expect(created.body.variables).toEqual(["orderId", "pickupCode", "trackUrl", "user.firstName"]);
    expect((await a.post("/api/communications", order, { as: "admin" })).status).toBe(409);
    expect((await a.get("/api/communications/order-shipped")).body.name).toBe("Order shipped");

    const vars = {
      orderId: "A-1",
      user: { firstName: "Ann & Bo" },
      trackUrl: "https://t.io/1",
      pickupCode: "991",
    };
    const sent = await a.send({
      to: "ann@sandbox.svc.test",
      commId: "order-shipped",
      variables: vars,
      strict: true,
    });
    expect(sent.status).toBe(200);
    const p = await a.post("/api/communications/order-shipped/preview", { variables: vars });
    expect(p.body.subject).toBe("Order A-1 shipped");
    expect(p.body.html).toContain("Hi Ann &amp; Bo");
    expect(p.body.text).toContain("Hi Ann & Bo");
    expect(p.body.html).toContain(">991</div>");

    const patched = await a.patch(
      "/api/communications/order-shipped",
      { slots: { ...order.slots, subject: "Shipped: {{orderId}}" } },
      { as: "admin" },
    );
    expect(patched.status).toBe(200);
    expect(
      (await a.post("/api/communications/order-shipped/preview", { variables: vars })).body.subject,
    ).toBe("Shipped: A-1");

    // switching to marketing adds the unsubscribe footer and makes the send endpoint refuse it
    await a.patch("/api/communications/order-shipped", { commType: "marketing" }, { as: "admin" });
    const mk = await a.post("/api/communications/order-shipped/preview", { variables: vars });
    expect(mk.body.html).toContain('href="{{unsubscribeUrl}}"');
    expect(
      (await a.send({ to: "ann@sandbox.svc.test", commId: "order-shipped", variables: vars })).body.error
        .code,
    ).toBe("comm_type_mismatch");

    expect((await a.del("/api/communications/order-shipped", undefined, { as: "admin" })).body).toEqual({
      id: "order-shipped",
      deleted: true,
    });
    expect((await a.get("/api/communications/order-shipped")).status).toBe(404);
  });

  it("overrides a built-in per workspace; deleting the override restores the built-in", async () => {
    const a = await txTenant(t);
    const b = await txTenant(t);
    const res = await a.patch(
      "/api/communications/welcome",
      { slots: { subject: "Hey {{name}}", headline: "Hello", body: "Go: {{onboardingUrl}}" } },
      { as: "admin" },
    );
    expect(res.status).toBe(200);
    expect(res.body.overridden).toBe(true);
    const pa = await a.post("/api/communications/welcome/preview", {
      variables: { name: "Al", onboardingUrl: "https://o.io" },
    });
    expect(pa.body.subject).toBe("Hey Al");
    const pb = await b.post("/api/communications/welcome/preview", {
      variables: { name: "Al", onboardingUrl: "https://o.io" },
    });
    expect(pb.body.subject).toBe("Welcome, Al");
    expect((await a.del("/api/communications/welcome", undefined, { as: "admin" })).status).toBe(200);
    expect(
      (await a.post("/api/communications/welcome/preview", { variables: { name: "Al" } })).body.subject,
    ).toBe("Welcome, Al");
    expect((await a.del("/api/communications/welcome", undefined, { as: "admin" })).status).toBe(409);
  });

  it("validates templates", async () => {
    const a = await txTenant(t);
    const bad = [
      { ...order, commType: "newsletter" },
      { ...order, slots: { headline: "no subject" } },
      { ...order, blocks: [{ type: "video", src: "x" }] },
      { ...order, blocks: [{ type: "text" }] },
      { ...order, id: "has space" },
      { ...order, blocks: [{ type: "text", text: "{{#open}} never closed" }] },
      { ...order, slots: { subject: "s", "bad-slot": "x" } },
      { name: "no type", slots: { subject: "s" }, blocks: [] },
    ];
    for (const body of bad) {
      const res = await a.post("/api/communications", body, { as: "admin" });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
    expect((await a.patch("/api/communications/order-x", { name: "x" }, { as: "admin" })).status).toBe(404);
  });

  it("members and keys read, only admins write; other workspaces' templates are 404", async () => {
    const a = await txTenant(t);
    const b = await txTenant(t);
    expect((await a.post("/api/communications", order, { as: "member" })).status).toBe(403);
    expect((await a.post("/api/communications", order, { as: "key" })).status).toBe(403);
    expect((await a.get("/api/communications", { as: "member" })).status).toBe(200);
    await a.post("/api/communications", order, { as: "admin" });
    expect((await b.get("/api/communications/order-shipped")).status).toBe(404);
    expect((await b.del("/api/communications/order-shipped", undefined, { as: "admin" })).status).toBe(404);
    expect((await a.get("/api/communications", { as: "none" })).status).toBe(401);
  });
});
