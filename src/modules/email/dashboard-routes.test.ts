import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const draft = {
  commType: "transactional",
  slots: { subject: "Order {{orderId}} shipped", headline: "Hi {{name}}" },
  blocks: [
    { type: "heading", text: "{{headline}}" },
    { type: "text", text: "Track it at {{trackingUrl}}" },
  ],
};

describe("preview of an unsaved template body", () => {
  it("renders subject, html and text with the variables given and lists the missing ones; nothing is stored", async () => {
    const a = await t.tenant();
    const before = await a.get("/api/communications", { as: "admin" });
    const res = await a.post(
      "/api/communications/preview",
      { ...draft, variables: { orderId: "A-17", name: "Ada" } },
      { as: "member" },
    );
    expect(res.status).toBe(200);
    expect(res.body.subject).toBe("Order A-17 shipped");
    expect(res.body.html).toContain("Hi Ada");
    expect(res.body.text).toContain("Hi Ada");
    expect(res.body.missing).toEqual(["trackingUrl"]);
    const after = await a.get("/api/communications", { as: "admin" });
    expect(after.body).toHaveLength(before.body.length);
  });

  it("refuses a body that would not save, with the compiler's message", async () => {
    const a = await t.tenant();
    const noSubject = await a.post(
      "/api/communications/preview",
      { ...draft, slots: { headline: "x" } },
      { as: "admin" },
    );
    expect(noSubject.status).toBe(400);
    expect(noSubject.body.error).toContain("slots.subject");
    const unknownBlock = await a.post(
      "/api/communications/preview",
      { ...draft, blocks: [{ type: "video", src: "x" }] },
      { as: "admin" },
    );
    expect(unknownBlock.status).toBe(400);
    expect((await a.post("/api/communications/preview", draft, { as: "none" })).status).toBe(401);
  });
});

describe("manual suppressions", () => {
  it("adds an address (lower-cased, reason manual), lists it, and lifts it", async () => {
    const a = await t.tenant();
    const res = await a.post(
      "/api/transactional/suppressions",
      { email: "Someone@Example.com", detail: "asked by phone" },
      { as: "admin" },
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      email: "someone@example.com",
      reason: "manual",
      detail: "asked by phone",
      createdAt: expect.any(String),
    });
    const list = await a.get("/api/transactional/suppressions", { as: "admin" });
    expect(list.body.map((s: { email: string }) => s.email)).toEqual(["someone@example.com"]);
    // adding it again keeps the one entry
    const again = await a.post(
      "/api/transactional/suppressions",
      { email: "someone@example.com" },
      { as: "admin" },
    );
    expect(again.status).toBe(201);
    expect(again.body.detail).toBe("asked by phone");
    const del = await a.del("/api/transactional/suppressions/someone%40example.com", undefined, {
      as: "admin",
    });
    expect(del.status).toBe(200);
    expect((await a.get("/api/transactional/suppressions", { as: "admin" })).body).toEqual([]);
  });

  it("is admin only and checks the address", async () => {
    const a = await t.tenant();
    expect(
      (await a.post("/api/transactional/suppressions", { email: "x@example.com" }, { as: "member" })).status,
    ).toBe(403);
    expect(
      (await a.post("/api/transactional/suppressions", { email: "not an address" }, { as: "admin" })).status,
    ).toBe(400);
    // another workspace does not see it
    const b = await t.tenant();
    await a.post("/api/transactional/suppressions", { email: "x@example.com" }, { as: "admin" });
    expect((await b.get("/api/transactional/suppressions", { as: "admin" })).body).toEqual([]);
  });
});

describe("preview frame", () => {
  it("is a shell with its own CSP: inline styles allowed, no script but its own, framed only by the app", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/communications/preview-frame", { as: "none" });
    expect(res.status).toBe(200);
    expect(String(res.headers["content-type"])).toContain("text/html");
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("style-src 'unsafe-inline'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(res.text).toContain('<script src="/api/communications/preview-frame.js"></script>');
    const js = await a.get("/api/communications/preview-frame.js", { as: "none" });
    expect(js.status).toBe(200);
    expect(js.text).toContain("e.source !== window.parent");
  });
});
