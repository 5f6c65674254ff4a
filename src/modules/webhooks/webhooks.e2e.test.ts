import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { fixture } from "./incoming/fixtures.testing.js";
import { trustCaForTests } from "./sender.js";
import { drainUntil, makeSelfSignedCert, startReceiver, subscribedTenant } from "./receiver.testing.js";

let t: TestApp;
const tls = makeSelfSignedCert();
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhookTargets: true });
  trustCaForTests(t.config, tls.cert);
});
afterAll(async () => t.close());

describe("service events of other modules reach subscribers, signed", () => {
  it("a paid invoice (incoming) reaches a revenue goal → goal.reached and lead.created delivered", async () => {
    const rx = await startReceiver(tls, () => ({ status: 200 }));
    try {
      const a = await t.tenant();
      const wh = await a.post("/api/webhooks", {
        url: `https://localhost:${rx.port}/lift`,
        events: ["goal.reached", "lead.created"],
      });
      const deadline = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
      const goal = await a.post("/api/goals", { metric: "revenue", target: 40, deadline });
      expect(goal.status).toBe(201);
      const secret = `whsec_${randomBytes(24).toString("base64")}`;
      await a.put("/api/webhooks/sources/payments", { secret }, { as: "admin" });
      const e = fixture("stripe-invoice.paid.json");
      // Stripe times are whole seconds and a goal counts from its creation (ms): wait for the next
      // whole second so the payment falls inside the goal's range.
      const goalSecond = Math.floor(Date.parse(goal.body.createdAt) / 1000);
      while (Math.floor(Date.now() / 1000) <= goalSecond) await new Promise((r) => setTimeout(r, 20));
      e.created = Math.floor(Date.now() / 1000);
      const body = JSON.stringify(e);
      const header = new Stripe("sk_test_dummy").webhooks.generateTestHeaderString({ payload: body, secret });
      const res = await a.request("POST", "/api/webhooks/payments", body, {
        as: "none",
        headers: { "content-type": "application/json", "stripe-signature": header },
      });
      expect(res.status).toBe(200);

      const verifier = new Webhook(wh.body.secret);
      const types = () =>
        rx.received.map((r) => (verifier.verify(r.body, r.headers) as { type: string }).type);
      expect(await drainUntil(t.app, async () => types().includes("goal.reached"))).toBe(true);
      expect(types().sort()).toEqual(["goal.reached", "lead.created"]);
      const reached = rx.received.map((r) => JSON.parse(r.body)).find((b) => b.type === "goal.reached");
      expect(reached.data).toMatchObject({ id: goal.body.id });
    } finally {
      await rx.close();
    }
  });

  it("starting an experiment delivers experiment.started", async () => {
    const rx = await startReceiver(tls, () => ({ status: 204 }));
    try {
      const { a, wh } = await subscribedTenant(t, rx.port, ["experiment.started"]);
      const exp = await a.post("/api/experiments", {
        name: "Headline",
        targetUrl: "https://shop.example.com/",
        variants: [{ name: "control" }, { name: "bold" }],
      });
      expect(exp.status).toBe(201);
      expect((await a.patch("/api/experiments", { id: exp.body.id, status: "running" })).status).toBe(200);
      expect(await drainUntil(t.app, async () => rx.received.length > 0)).toBe(true);
      const body = new Webhook(wh.body.secret).verify(rx.received[0]!.body, rx.received[0]!.headers);
      expect(body).toMatchObject({ type: "experiment.started", data: { id: exp.body.id } });
    } finally {
      await rx.close();
    }
  });
});
