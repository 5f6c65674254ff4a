import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { type SmtpPeer, parseMail, startSmtpPeer } from "../email/email.testing.js";
import { createUser } from "../workspace/service.js";
import { drainUntil, makeSelfSignedCert, startReceiver } from "../webhooks/receiver.testing.js";
import { trustCaForTests } from "../webhooks/sender.js";
import { checkAlert, checkAllAlerts } from "./service.js";

/**
 * Alerts end to end on both databases: signups seeded on known past days, checks run "as of" each
 * following day (the check's clock), firings once per crossing, and the notifications a firing
 * sends: a mail received by a real SMTP peer and an `alert.fired` webhook verified as Standard
 * Webhooks verifies it.
 */

const DAY = 86_400_000;
let t: TestApp;
let a: Tenant;
let peer: SmtpPeer;
const tls = makeSelfSignedCert();
const today = Math.floor(Date.now() / DAY);
/** Signups per day, from 8 days ago to 4 days ago. */
const SIGNUPS = [5, 1, 1, 5, 2];
const dayOf = (i: number) => today - 8 + i;
/** The check's clock: an hour into the day after seeded day `i`, so day `i` is the latest complete one. */
const asOf = (i: number) => (dayOf(i) + 1) * DAY + 3_600_000;
const bucket = (i: number) => new Date(dayOf(i) * DAY).toISOString();

beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await startTestApp({
    smtpUrl: peer.url,
    publicUrl: "https://lift.example.com",
    allowPrivateWebhookTargets: true,
    rateLimits: { events: 0, reads: 0, writes: 0 } as never,
  });
  trustCaForTests(t.config, tls.cert);
  a = await t.tenant();
  const batch = SIGNUPS.flatMap((n, i) =>
    Array.from({ length: n }, (_, k) => ({
      type: "track",
      event: "signup",
      anonymousId: `alert-person-${i}-${k}`,
      timestamp: new Date(dayOf(i) * DAY + 36_000_000 + k * 1000).toISOString(),
    })),
  );
  const basic = { authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}` };
  const res = await a.post("/v1/batch", { batch }, { as: "none", headers: basic });
  expect(res.status, res.text).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

const signups = { series: [{ event: "signup" }], interval: "day" };
const project = () => ({ id: a.projectId, workspaceId: a.workspaceId });
const create = async (body: Record<string, unknown>) => {
  const res = await a.post("/api/alerts", {
    name: "Signups low",
    query: signups,
    notify: { emails: [], webhook: false },
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
};

describe("an alert fires when it crosses, not every check while it stays crossed", () => {
  it("signups per day below 3: fires once, stays quiet while crossed and after recovery, fires on the next crossing", async () => {
    const alert = await create({ condition: { kind: "below", value: 3 } });
    const check = (i: number) => checkAlert(t.app.deps, project(), alert.id, asOf(i));
    // Day 0 (5 signups) is inside: nothing.
    expect(await check(0)).toMatchObject({ bucket: bucket(0), value: 5, crossed: false, fired: false });
    // Day 1 (1 signup) crosses: one firing, and checking again the same day fires no second one.
    const first = await check(1);
    expect(first).toMatchObject({
      bucket: bucket(1),
      value: 1,
      previousValue: 5,
      crossed: true,
      fired: true,
    });
    expect(first.firing).toMatchObject({ bucket: bucket(1), value: 1, previousValue: 5 });
    expect(await check(1)).toMatchObject({ crossed: true, fired: false });
    // Day 2 is still below: crossed, but not a new crossing.
    expect(await check(2)).toMatchObject({ value: 1, crossed: true, fired: false });
    // Day 3 recovers (5), day 4 crosses again (2): the second firing.
    expect(await check(3)).toMatchObject({ value: 5, crossed: false, fired: false });
    expect(await check(4)).toMatchObject({ value: 2, crossed: true, fired: true });
    expect(await check(4)).toMatchObject({ fired: false });

    const firings = await a.get(`/api/alerts/${alert.id}/firings`);
    expect(firings.status).toBe(200);
    expect(firings.body.items.map((f: { bucket: string }) => f.bucket)).toEqual([bucket(4), bucket(1)]);
    expect(firings.body.items[1]).toMatchObject({
      value: 1,
      previousValue: 5,
      condition: { kind: "below", value: 3 },
    });
    const page = await a.get(`/api/alerts/${alert.id}/firings?limit=1`);
    expect(page.body.items).toHaveLength(1);
    const next = await a.get(`/api/alerts/${alert.id}/firings?limit=1&cursor=${page.body.nextCursor}`);
    expect(next.body.items[0].bucket).toBe(bucket(1));
    const got = await a.get(`/api/alerts/${alert.id}`);
    expect(got.body.state).toMatchObject({ lastBucket: bucket(4), crossed: true, lastValue: 2 });
  });

  it("a change of a percent compares the bucket with the one before", async () => {
    const down = await create({ condition: { kind: "change", direction: "down", percent: 50 } });
    const up = await create({ condition: { kind: "change", direction: "up", percent: 100 } });
    const check = (id: string, i: number) => checkAlert(t.app.deps, project(), id, asOf(i));
    expect(await check(down.id, 1)).toMatchObject({ value: 1, previousValue: 5, crossed: true, fired: true });
    expect(await check(up.id, 1)).toMatchObject({ crossed: false, fired: false });
    expect(await check(down.id, 2)).toMatchObject({ crossed: false, fired: false });
    expect(await check(up.id, 3)).toMatchObject({ value: 5, previousValue: 1, crossed: true, fired: true });
    expect(await check(down.id, 4)).toMatchObject({ value: 2, previousValue: 5, crossed: true, fired: true });
  });

  it("the scheduled sweep checks enabled alerts only; a disabled alert's check changes nothing", async () => {
    const on = await create({ condition: { kind: "below", value: 3 } });
    const off = await create({ condition: { kind: "below", value: 3 }, enabled: false });
    // An alert whose query stopped answering (its goal deleted since) does not stop the sweep.
    const goal = await a.post("/api/conversion-goals", { name: "Gone", eventType: "signup" });
    expect(goal.status).toBe(201);
    const broken = await create({
      query: { ...signups, goal: goal.body.id },
      condition: { kind: "below", value: 3 },
    });
    expect((await a.del(`/api/conversion-goals?id=${goal.body.id}`)).status).toBe(200);
    await checkAllAlerts(t.app.deps, asOf(1));
    expect((await a.get(`/api/alerts/${on.id}/firings`)).body.items).toHaveLength(1);
    expect((await a.get(`/api/alerts/${off.id}/firings`)).body.items).toHaveLength(0);
    expect((await a.get(`/api/alerts/${broken.id}`)).body.state.lastBucket).toBeNull();
    expect((await a.post(`/api/alerts/${broken.id}/check`)).status).toBe(400);
    expect(await checkAlert(t.app.deps, project(), off.id, asOf(1))).toMatchObject({
      crossed: true,
      fired: false,
    });
    expect((await a.get(`/api/alerts/${off.id}`)).body.state.lastBucket).toBeNull();
  });
});

describe("a firing notifies", () => {
  it("by mail to the listed members (through a real SMTP peer) and by a signed alert.fired webhook", async () => {
    const rx = await startReceiver(tls, () => ({ status: 200 }));
    try {
      const wh = await a.post("/api/webhooks", {
        url: `https://localhost:${rx.port}/lift`,
        events: ["alert.fired"],
      });
      expect(wh.status, wh.text).toBe(201);
      const alert = await create({
        name: "Signups dropped",
        condition: { kind: "below", value: 3 },
        notify: { emails: [a.admin.email.toUpperCase()], webhook: true },
      });
      // Through the API, on today's clock: yesterday had no signup at all.
      const res = await a.post(`/api/alerts/${alert.id}/check`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ value: 0, crossed: true, fired: true });
      expect((await a.post(`/api/alerts/${alert.id}/check`)).body.fired).toBe(false);

      const verifier = new Webhook(wh.body.secret);
      expect(await drainUntil(t.app, async () => rx.received.length > 0 && peer.messages.length > 0)).toBe(
        true,
      );
      const hook = verifier.verify(rx.received[0]!.body, rx.received[0]!.headers) as Record<string, any>;
      expect(hook.type).toBe("alert.fired");
      expect(hook.data).toMatchObject({
        id: res.body.firing.id,
        alert: { id: alert.id, name: "Signups dropped" },
        series: "signup",
        interval: "day",
        value: 0,
        condition: { kind: "below", value: 3 },
      });
      expect(hook.data.trendsUrl).toMatch(/^https:\/\/lift\.example\.com\/trends\?series=/);

      const msg = peer.messages.find((m) => m.to.includes(a.admin.email))!;
      expect(msg).toBeDefined();
      const mail = await parseMail(msg.raw);
      expect(mail.subject).toBe("Alert: Signups dropped");
      expect(mail.text).toContain("signup was 0 for");
      expect(mail.text).toContain("below 3");
      expect(mail.html).toContain("Signups dropped");
      const link = new URL(hook.data.trendsUrl);
      expect(JSON.parse(link.searchParams.get("series")!)).toMatchObject([{ event: "signup" }]);
      expect(link.searchParams.get("interval")).toBe("day");
      expect(mail.text).toContain(hook.data.trendsUrl);
      expect(
        await drainUntil(t.app, async () => {
          const f = (await a.get(`/api/alerts/${alert.id}/firings`)).body.items[0];
          return f.email.length === 1;
        }),
      ).toBe(true);
      const firing = (await a.get(`/api/alerts/${alert.id}/firings`)).body.items[0];
      expect(firing.email[0]).toMatchObject({ to: a.admin.email, status: "sent" });
    } finally {
      await rx.close();
    }
  });
});

describe("a delivery that fails never loses the firing", () => {
  it("the mail server refusing the recipient leaves the firing and records the outcome", async () => {
    const member = await createUser(t.app.db, a.workspaceId, {
      email: "refused-member@example.com",
      role: "member",
      password: "correct horse battery",
    });
    peer.onRcpt = (to) => (to === member.email ? { code: 550, message: "no such mailbox" } : null);
    try {
      const alert = await create({
        condition: { kind: "below", value: 3 },
        notify: { emails: [member.email], webhook: false },
      });
      expect((await checkAlert(t.app.deps, project(), alert.id, asOf(1))).fired).toBe(true);
      expect(
        await drainUntil(t.app, async () => {
          const f = (await a.get(`/api/alerts/${alert.id}/firings`)).body.items[0];
          return f.email.length === 1;
        }),
      ).toBe(true);
      const firings = (await a.get(`/api/alerts/${alert.id}/firings`)).body.items;
      expect(firings).toHaveLength(1);
      expect(firings[0].bucket).toBe(bucket(1));
      expect(firings[0].email[0].to).toBe(member.email);
      expect(firings[0].email[0].status).not.toBe("sent");
    } finally {
      peer.onRcpt = null;
    }
  });
});

describe("validation and access", () => {
  const bad = async (body: Record<string, unknown>, match: RegExp) => {
    const res = await a.post("/api/alerts", {
      name: "Bad",
      query: signups,
      condition: { kind: "below", value: 3 },
      notify: { emails: [], webhook: false },
      ...body,
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toMatch(match);
  };
  it("refuses two series, a breakdown, an hour interval, a stranger's email and a bad condition", async () => {
    await bad({ query: { ...signups, series: [{ event: "signup" }, { event: "pageview" }] } }, /series/);
    await bad({ query: { ...signups, breakdown: { property: "channel" } } }, /query/);
    await bad({ query: { ...signups, interval: "hour" } }, /interval/);
    await bad({ notify: { emails: ["stranger@example.com"], webhook: false } }, /not a member/);
    await bad({ condition: { kind: "change", percent: 10 } }, /condition/);
    await bad({ condition: { kind: "sideways", value: 1 } }, /condition/);
    await bad(
      { query: { series: [{ event: "order", measure: "sum" }], interval: "day" } },
      /property is required/,
    );
    await bad({ query: { ...signups, goal: "gol_unknown" } }, /no conversion goal gol_unknown/);
  });

  it("another project's alert is 404, and lists show only the caller's", async () => {
    const alert = await create({ condition: { kind: "above", value: 100 } });
    const b = await t.tenant();
    for (const res of [
      await b.get(`/api/alerts/${alert.id}`),
      await b.patch(`/api/alerts/${alert.id}`, { name: "mine" }),
      await b.del(`/api/alerts/${alert.id}`),
      await b.get(`/api/alerts/${alert.id}/firings`),
      await b.post(`/api/alerts/${alert.id}/check`),
    ])
      expect(res.status).toBe(404);
    expect((await b.get("/api/alerts")).body.items).toEqual([]);
    expect((await a.get("/api/alerts")).body.items.map((x: { id: string }) => x.id)).toContain(alert.id);
  });

  it("a new condition starts the state afresh; delete removes the alert and its firings", async () => {
    const alert = await create({ condition: { kind: "below", value: 3 } });
    await checkAlert(t.app.deps, project(), alert.id, asOf(1));
    const patched = await a.patch(`/api/alerts/${alert.id}`, { condition: { kind: "below", value: 2 } });
    expect(patched.status).toBe(200);
    expect(patched.body.state.lastBucket).toBeNull();
    expect((await a.del(`/api/alerts/${alert.id}`)).status).toBe(200);
    expect((await a.get(`/api/alerts/${alert.id}`)).status).toBe(404);
    expect((await a.get(`/api/alerts/${alert.id}/firings`)).status).toBe(404);
  });
});
