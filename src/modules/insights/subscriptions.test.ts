import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { seedFilterProject } from "../analytics/filters/filter-fixture.testing.js";
import { type SmtpPeer, parseMail, startSmtpPeer } from "../email/email.testing.js";
import { drainUntil } from "../webhooks/receiver.testing.js";
import { checkAllSubscriptions } from "./service.js";

/**
 * Subscriptions end to end on both databases: a dashboard emailed on its schedule, received by a
 * real SMTP peer and parsed, its numbers compared with the API's answers for the same tiles; one
 * mail per period however many sweeps run at once.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let t: TestApp;
let a: Tenant;
let peer: SmtpPeer;

beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await startTestApp({
    smtpUrl: peer.url,
    publicUrl: "https://lift.example.com",
    rateLimits: { events: 0, reads: 0, writes: 0 } as never,
  });
  a = await t.tenant();
  await seedFilterProject(a);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

const insight = async (kind: string, name: string, settings: unknown) => {
  const res = await a.post("/api/insights", { kind, name, settings });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
};

/** The tile's section of the mail: from its heading to the next tile's. */
const section = (html: string, name: string) => {
  const part = html.split("<h2").find((p) => p.includes(`>${name}</h2>`));
  expect(part, `tile ${name} in the mail`).toBeDefined();
  return part!;
};
/** The number in the tile's row labelled `label` (thousands separators and units stripped). */
const cell = (part: string, label: string) => {
  const m = new RegExp(`<th[^>]*>${label}</th>\\s*<td[^>]*>([^<]*)</td>`).exec(part);
  expect(m, `row ${label}`).not.toBeNull();
  return Number(m![1]!.replace(/[,%$€£\s]/g, ""));
};

describe("a dashboard subscription", () => {
  it("mails the dashboard once per period: its numbers are the API's, its charts inline SVG, a link back", async () => {
    const summary = await insight("summary", "This week", { period: "7d" });
    const trend = await insight("trends", "Pageviews", {
      series: [{ event: "pageview" }],
      interval: "day",
      period: "7d",
    });
    const dash = await a.post("/api/dashboards", {
      name: "Monday numbers",
      items: [
        { insightId: summary, x: 0, y: 0, w: 6, h: 1 },
        { insightId: trend, x: 6, y: 0, w: 6, h: 1 },
      ],
    });
    expect(dash.status, dash.text).toBe(201);
    const hour = new Date().getUTCHours();
    const created = await a.post("/api/subscriptions", {
      target: { dashboardId: dash.body.id },
      frequency: "daily",
      hour,
      emails: [a.admin.email.toUpperCase()],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ frequency: "daily", hour, emails: [a.admin.email], enabled: true });
    const id = created.body.id as string;

    // Tomorrow at the hour: one period is due. Three sweeps (two at once, as two processes) send one mail.
    const due = (Math.floor(Date.now() / DAY) + 1) * DAY + hour * HOUR + 60_000;
    await Promise.all([checkAllSubscriptions(t.app.deps, due), checkAllSubscriptions(t.app.deps, due)]);
    await checkAllSubscriptions(t.app.deps, due + HOUR);
    const sent = async () => (await a.get(`/api/subscriptions/${id}/sends`)).body.items as any[];
    // The first send starts the reader threads: give a loaded machine time.
    expect(await drainUntil(t.app, async () => (await sent())[0]?.email.length === 1, 60_000)).toBe(true);
    const sends = await sent();
    expect(sends).toHaveLength(1);
    expect(sends[0]).toMatchObject({
      period: new Date((Math.floor(Date.now() / DAY) + 1) * DAY + hour * HOUR).toISOString(),
      email: [{ to: a.admin.email, status: "sent", error: null }],
    });
    const mails = peer.messages.filter((m) => m.to.includes(a.admin.email));
    expect(mails).toHaveLength(1);

    const mail = await parseMail(mails[0]!.raw);
    expect(mail.subject).toBe("Monday numbers: your daily dashboard");
    const html = mail.html!;
    expect(html).toContain(`https://lift.example.com/dashboards/${dash.body.id}`);
    expect(html).not.toMatch(/<img[^>]+src="https?:/);
    expect(html.match(/<svg[^>]*role="img"/g)?.length).toBeGreaterThanOrEqual(1);

    const api = await a.get(`/api/dashboards/${dash.body.id}/results?refresh=true`);
    expect(api.status).toBe(200);
    const [s, tr] = api.body.tiles;
    expect(s.answer.result.visitors).toBeGreaterThan(0);
    const sum = section(html, "This week");
    expect(cell(sum, "Visitors")).toBe(s.answer.result.visitors);
    expect(cell(sum, "Conversions")).toBe(s.answer.result.conversions);
    expect(cell(sum, "Conversion rate")).toBe(Number((s.answer.result.conversionRate * 100).toFixed(1)));
    expect(cell(sum, "Revenue")).toBeCloseTo(s.answer.result.revenue, 2);
    const line = tr.answer.result.series[0];
    expect(line.total).toBeGreaterThan(0);
    const trendPart = section(html, "Pageviews");
    expect(cell(trendPart, "pageview")).toBe(line.total);
    expect(trendPart).toMatch(/<svg[^>]*role="img"/);

    // The next day's period is a new send.
    await checkAllSubscriptions(t.app.deps, due + DAY);
    expect(await drainUntil(t.app, async () => (await sent()).length === 2)).toBe(true);
    expect(
      await drainUntil(
        t.app,
        async () => peer.messages.filter((m) => m.to.includes(a.admin.email)).length === 2,
      ),
    ).toBe(true);
  }, 90_000);

  it("an insight subscription mails that insight; a disabled one is not sent", async () => {
    const one = await insight("summary", "Only this", { period: "7d" });
    const hour = (new Date().getUTCHours() + 3) % 24;
    const on = await a.post("/api/subscriptions", {
      name: "Insight by mail",
      target: { insightId: one },
      frequency: "weekly",
      weekday: "monday",
      hour,
      emails: [a.admin.email],
    });
    expect(on.status, on.text).toBe(201);
    const off = await a.post("/api/subscriptions", {
      target: { insightId: one },
      frequency: "weekly",
      weekday: "monday",
      hour,
      emails: [a.admin.email],
      enabled: false,
    });
    expect(off.status, off.text).toBe(201);
    await checkAllSubscriptions(t.app.deps, Date.now() + 8 * DAY);
    const sends = async (id: string) => (await a.get(`/api/subscriptions/${id}/sends`)).body.items as any[];
    expect(
      await drainUntil(t.app, async () => (await sends(on.body.id))[0]?.email.length === 1, 30_000),
    ).toBe(true);
    expect(await sends(off.body.id)).toHaveLength(0);
    const mail = peer.messages.find((m) => m.raw.includes("Insight by mail"));
    expect(mail).toBeDefined();
    const parsed = await parseMail(mail!.raw);
    expect(parsed.subject).toBe("Insight by mail: your weekly insight");
    // The link opens the insight itself (the dashboard resolves it to its report's page), not a list.
    const links = [...parsed.html!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toContain(`https://lift.example.com/dashboards/insights/${one}`);
    const api = await a.get(`/api/insights/${one}/results`);
    expect(cell(section(parsed.html!, "Only this"), "Visitors")).toBe(api.body.result.visitors);
  }, 60_000);
});

describe("validation and access", () => {
  const base = () => ({ frequency: "daily", hour: 8, emails: [a.admin.email] });
  const bad = async (body: Record<string, unknown>, match: RegExp) => {
    const res = await a.post("/api/subscriptions", body);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toMatch(match);
  };

  it("refuses strangers, unknown targets, impossible schedules and too many addresses", async () => {
    const dash = (await a.post("/api/dashboards", { name: "Empty" })).body.id as string;
    const target = { dashboardId: dash };
    await bad({ ...base(), target, emails: ["stranger@example.com"] }, /not a member/);
    await bad({ ...base(), target: { dashboardId: "dsh_nope" } }, /no dashboard dsh_nope/);
    await bad({ ...base(), target: { insightId: "ins_nope" } }, /no insight ins_nope/);
    await bad({ ...base(), target: { dashboardId: dash, insightId: "x" } }, /target/);
    await bad({ ...base(), target, hour: 24 }, /hour/);
    await bad({ ...base(), target, weekday: "monday" }, /weekday/);
    await bad({ ...base(), target, frequency: "weekly" }, /weekday/);
    await bad({ ...base(), target, frequency: "monthly", dayOfMonth: 31 }, /dayOfMonth/);
    await bad({ ...base(), target, emails: [] }, /emails/);
    const many = Array.from({ length: 51 }, (_, i) => `p${i}@example.com`);
    await bad({ ...base(), target, emails: many }, /emails/);
  });

  it("another project's subscription is 404; PATCH changes the schedule; DELETE removes it and its sends", async () => {
    const dash = (await a.post("/api/dashboards", { name: "Mine" })).body.id as string;
    const sub = await a.post("/api/subscriptions", { ...base(), target: { dashboardId: dash } });
    expect(sub.status, sub.text).toBe(201);
    const b = await t.tenant();
    for (const res of [
      await b.get(`/api/subscriptions/${sub.body.id}`),
      await b.patch(`/api/subscriptions/${sub.body.id}`, { hour: 3 }),
      await b.del(`/api/subscriptions/${sub.body.id}`),
      await b.get(`/api/subscriptions/${sub.body.id}/sends`),
    ])
      expect(res.status).toBe(404);
    expect((await b.get("/api/subscriptions")).body.items).toEqual([]);
    const patched = await a.patch(`/api/subscriptions/${sub.body.id}`, {
      frequency: "monthly",
      dayOfMonth: 15,
      hour: 6,
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ frequency: "monthly", dayOfMonth: 15, hour: 6, weekday: null });
    const listed = await a.get(`/api/subscriptions?dashboardId=${dash}`);
    expect(listed.body.items.map((x: { id: string }) => x.id)).toEqual([sub.body.id]);
    expect((await a.del(`/api/subscriptions/${sub.body.id}`)).status).toBe(200);
    expect((await a.get(`/api/subscriptions/${sub.body.id}`)).status).toBe(404);
  });
});
