import { createHmac, randomBytes } from "node:crypto";
import { sign as signGitHub } from "@octokit/webhooks-methods";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { listEventsForVisitors } from "../../event-store/service.js";
import { upsertLeadByEmail } from "../../identity/service.js";
import { fixture } from "./fixtures.testing.js";

let t: TestApp;
const stripe = new Stripe("sk_test_dummy");
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

type A = Awaited<ReturnType<TestApp["tenant"]>>;
const secret = () => `whsec_${randomBytes(24).toString("base64")}`;

async function configure(a: A, source: string, value: string) {
  const res = await a.put(`/api/webhooks/sources/${source}`, { secret: value }, { as: "admin" });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ source, configured: true });
}

function stripeEvent(name: string, patch: (e: any) => void = () => {}) {
  const e = fixture(name);
  e.id = `evt_${randomBytes(8).toString("hex")}`;
  e.created = Math.floor(Date.now() / 1000);
  patch(e);
  return JSON.stringify(e);
}

function postStripe(a: A, body: string, header: string, query = "") {
  return a.request("POST", `/api/webhooks/payments${query}`, body, {
    as: "none",
    headers: { "content-type": "application/json", "stripe-signature": header },
  });
}

/** HubSpot v3 as its documentation computes it: base64 HMAC-SHA256 of method+URI+body+timestamp. */
function hubspotHeaders(clientSecret: string, uri: string, body: string, timestamp = Date.now()) {
  const sig = createHmac("sha256", clientSecret).update(`POST${uri}${body}${timestamp}`).digest("base64");
  return {
    "content-type": "application/json",
    "x-hubspot-signature-v3": sig,
    "x-hubspot-request-timestamp": String(timestamp),
  };
}

async function leadEvents(a: A, email: string) {
  const project = { id: a.projectId, workspaceId: a.workspaceId };
  const { lead, created } = await upsertLeadByEmail(t.app.deps, project, { email, source: "test" });
  expect(created).toBe(false); // the webhook made it
  return { lead, events: await listEventsForVisitors(t.app.db, project, [`lead:${lead.id}`], 50) };
}

describe("POST /api/webhooks/:source routing", () => {
  it("404 for an unknown source, on POST and on PUT", async () => {
    const a = await t.tenant();
    const res = await a.request("POST", "/api/webhooks/ledger", "{}", {
      as: "none",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "NOT_FOUND", status: 404 });
    expect(
      (await a.put("/api/webhooks/sources/ledger", { secret: "12345678" }, { as: "admin" })).status,
    ).toBe(404);
  });

  it("only a workspace admin sets source secrets", async () => {
    const a = await t.tenant();
    expect((await a.put("/api/webhooks/sources/payments", { secret: secret() })).status).toBe(403);
    expect(
      (await a.put("/api/webhooks/sources/payments", { secret: secret() }, { as: "member" })).status,
    ).toBe(403);
    expect((await a.put("/api/webhooks/sources/payments", { secret: secret() }, { as: "none" })).status).toBe(
      401,
    );
  });

  it("401 with no configured secret or no signature header", async () => {
    const a = await t.tenant();
    const body = stripeEvent("stripe-invoice.paid.json");
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: secret() });
    expect((await postStripe(a, body, header)).status).toBe(401);
    const none = await a.request("POST", "/api/webhooks/payments", body, {
      as: "none",
      headers: { "content-type": "application/json" },
    });
    expect(none).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
  });

  it("the verifying secret picks the workspace; ?project picks one of its projects", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const sa = secret();
    const sb = secret();
    await configure(a, "payments", sa);
    await configure(b, "payments", sb);
    const second = await b.post("/api/projects", { name: "Second" }, { as: "admin" });
    const body = stripeEvent("stripe-invoice.paid.json", (e) => {
      e.data.object.customer_email = "routed@example.com";
    });
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: sb });
    // A's project id with B's signature is not found (B cannot write into A).
    expect((await postStripe(b, body, header, `?project=${a.projectId}`)).status).toBe(404);
    const res = await postStripe(b, body, header, `?project=${second.body.id}`);
    expect(res.status).toBe(200);
    const project = { id: second.body.id, workspaceId: b.workspaceId };
    const { created } = await upsertLeadByEmail(t.app.deps, project, {
      email: "routed@example.com",
      source: "test",
    });
    expect(created).toBe(false);
    const inA = await upsertLeadByEmail(
      t.app.deps,
      { id: a.projectId, workspaceId: a.workspaceId },
      { email: "routed@example.com", source: "test" },
    );
    expect(inA.created).toBe(true);
  });
});

describe("payments (Stripe-Signature)", () => {
  it("a paid invoice becomes a $revenue event on the customer's lead; tampered, wrong secret, stale and replay", async () => {
    const a = await t.tenant();
    const s = secret();
    await configure(a, "payments", s);
    const body = stripeEvent("stripe-invoice.paid.json");
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: s });

    const ok = await postStripe(a, body, header);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ received: true, duplicate: false, processed: 1 });
    const { lead, events } = await leadEvents(a, "grace.hopper@example.com");
    expect(lead.email).toBe("grace.hopper@example.com");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "$revenue",
      leadId: lead.id,
      data: { revenue: 49, currency: "USD", source: "payments", externalId: "in_1PqH2ZLkdIwHu7ixm0a1B2c3" },
    });

    const changed = body.replace('"amount_paid":4900', '"amount_paid":9900');
    expect(changed).not.toBe(body);
    const tampered = await postStripe(a, changed, header);
    expect(tampered.status).toBe(401);
    const wrong = await postStripe(
      a,
      body,
      stripe.webhooks.generateTestHeaderString({ payload: body, secret: secret() }),
    );
    expect(wrong.status).toBe(401);
    const staleHeader = stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: s,
      timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    const stale = await postStripe(a, body, staleHeader);
    expect(stale.status).toBe(401);
    expect(stale.body.error).toMatch(/tolerance/);

    const replay = await postStripe(
      a,
      body,
      stripe.webhooks.generateTestHeaderString({ payload: body, secret: s }),
    );
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ received: true, duplicate: true, processed: 0 });
    expect((await leadEvents(a, "grace.hopper@example.com")).events).toHaveLength(1);
  });

  it("a one-off checkout counts, a refund is negative, other events are accepted and ignored", async () => {
    const a = await t.tenant();
    const s = secret();
    await configure(a, "payments", s);
    for (const name of ["stripe-checkout.session.completed.json", "stripe-charge.refunded.json"]) {
      const body = stripeEvent(name);
      expect(
        (await postStripe(a, body, stripe.webhooks.generateTestHeaderString({ payload: body, secret: s })))
          .status,
      ).toBe(200);
    }
    const other = stripeEvent("stripe-invoice.paid.json", (e) => {
      e.type = "customer.created";
    });
    const ignored = await postStripe(
      a,
      other,
      stripe.webhooks.generateTestHeaderString({ payload: other, secret: s }),
    );
    expect(ignored.body).toEqual({ received: true, duplicate: false, processed: 0 });
    const { events } = await leadEvents(a, "ada@example.com");
    expect(events.map((e) => [e.data.revenue, e.data.currency])).toEqual([
      [129, "EUR"],
      [-29, "EUR"],
    ]);
  });

  it("a paid invoice shows up in attribution revenue", async () => {
    const a = await t.tenant();
    const s = secret();
    await configure(a, "payments", s);
    const body = stripeEvent("stripe-invoice.paid.json");
    expect(
      (await postStripe(a, body, stripe.webhooks.generateTestHeaderString({ payload: body, secret: s })))
        .status,
    ).toBe(200);
    const res = await a.get("/api/attribution/summary", { query: { model: "last_touch", period: "30d" } });
    expect(res.status).toBe(200);
    const total = res.body.channels.reduce((n: number, c: { revenue: number }) => n + c.revenue, 0);
    expect(total).toBe(49);
  });
});

describe("crm (HubSpot signature v3)", () => {
  const uri = "http://localhost:3000/api/webhooks/crm";
  const post = (a: A, body: string, headers: Record<string, string>) =>
    a.request("POST", "/api/webhooks/crm", body, { as: "none", headers });

  it("contacts become leads and a won deal becomes revenue on the contact's lead", async () => {
    const a = await t.tenant();
    const s = randomBytes(18).toString("hex");
    await configure(a, "crm", s);
    const body = JSON.stringify(fixture("hubspot-contact-and-deal.json"));
    const res = await post(a, body, hubspotHeaders(s, uri, body));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ duplicate: false, processed: 2 });
    const { lead, events } = await leadEvents(a, "linus@example.com");
    expect(lead.properties).toMatchObject({ crmContactId: "51" });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "$revenue",
      data: { revenue: 1500, currency: "USD", source: "crm", externalId: "deal:9124551877" },
    });

    const replay = await post(a, body, hubspotHeaders(s, uri, body));
    expect(replay.body).toEqual({ received: true, duplicate: true, processed: 0 });
    expect((await leadEvents(a, "linus@example.com")).events).toHaveLength(1);
  });

  it("tampered body, wrong secret and stale timestamp are 401", async () => {
    const a = await t.tenant();
    const s = randomBytes(18).toString("hex");
    await configure(a, "crm", s);
    const body = JSON.stringify(fixture("hubspot-contact-and-deal.json"));
    const changed = body.replace('"1500"', '"9500"');
    expect(changed).not.toBe(body);
    expect((await post(a, changed, hubspotHeaders(s, uri, body))).status).toBe(401);
    expect((await post(a, body, hubspotHeaders("another-client-secret", uri, body))).status).toBe(401);
    const stale = await post(a, body, hubspotHeaders(s, uri, body, Date.now() - 6 * 60_000));
    expect(stale.status).toBe(401);
    expect(stale.body.error).toMatch(/5-minute/);
    // Signed for another URL (the URI is part of what HubSpot signs).
    expect(
      (await post(a, body, hubspotHeaders(s, "https://evil.example/api/webhooks/crm", body))).status,
    ).toBe(401);
  });
});

describe("code_host (X-Hub-Signature-256)", () => {
  const post = async (a: A, s: string, event: string, body: string, delivery = crypto.randomUUID()) =>
    a.request("POST", "/api/webhooks/code_host", body, {
      as: "none",
      headers: {
        "content-type": "application/json",
        "x-github-event": event,
        "x-github-delivery": delivery,
        "x-hub-signature-256": await signGitHub(s, body),
      },
    });

  it("stars, forks and app installations become custom events; replay and bad signatures", async () => {
    const a = await t.tenant();
    const s = randomBytes(20).toString("hex");
    await configure(a, "code_host", s);
    const star = JSON.stringify(fixture("github-star.json"));
    const delivery = crypto.randomUUID();
    expect((await post(a, s, "star", star, delivery)).body).toMatchObject({ processed: 1, duplicate: false });
    expect((await post(a, s, "fork", JSON.stringify(fixture("github-fork.json")))).status).toBe(200);
    expect(
      (await post(a, s, "installation", JSON.stringify(fixture("github-installation.json")))).status,
    ).toBe(200);
    expect(
      (await post(a, s, "ping", JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 }))).body,
    ).toMatchObject({ processed: 0 });

    const replay = await post(a, s, "star", star, delivery);
    expect(replay.body).toEqual({ received: true, duplicate: true, processed: 0 });

    const events = await listEventsForVisitors(
      t.app.db,
      { id: a.projectId, workspaceId: a.workspaceId },
      ["code_host:583231"],
      10,
    );
    expect(events.map((e) => e.type).sort()).toEqual([
      "code_host.fork",
      "code_host.signup",
      "code_host.star",
    ]);
    expect(events.find((e) => e.type === "code_host.star")).toMatchObject({
      url: "https://github.com/acme/lift",
      data: { repository: "acme/lift", login: "octocat" },
    });
    expect(events.find((e) => e.type === "code_host.signup")!.data).toMatchObject({
      account: "octo-org",
      installationId: "53981244",
    });

    expect(star.replace("octocat", "mallory")).not.toBe(star);
    const tampered = await a.request("POST", "/api/webhooks/code_host", star.replace("octocat", "mallory"), {
      as: "none",
      headers: {
        "content-type": "application/json",
        "x-github-event": "star",
        "x-github-delivery": crypto.randomUUID(),
        "x-hub-signature-256": await signGitHub(s, star),
      },
    });
    expect(tampered.status).toBe(401);
    expect((await post(a, randomBytes(20).toString("hex"), "star", star)).status).toBe(401);
  });
});
