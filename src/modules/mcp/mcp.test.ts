import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Channel, SITE, entryOf } from "../../../test/analytics/truth/dataset.js";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { BreakdownQuery } from "../analytics/service.js";
import { type ToolResult, bearer, callJson as call, listenForMcp, mcpClient } from "./mcp.testing.js";

/**
 * Lift's MCP endpoint through the SDK's own client (Client + StreamableHTTPClientTransport) against
 * a listening app: the tools an agent sees, answers equal to the HTTP API's and to a truth computed
 * here from the data sent, and tool errors for bad input. Refusals and limits: mcp.security.test.ts.
 */
const DAY = 86_400_000;
/** "Now" for the visits, kept out of the day's last 10 minutes so a visit and its purchase share a day. */
const NOW = Math.min(Date.now(), Math.floor(Date.now() / DAY) * DAY + DAY - 10 * 60_000);

interface Visit {
  visitor: string;
  channel: Channel;
  daysAgo: number;
  buys: boolean;
}
/** `n` visitors from one channel on one day, the first `buyers` of them buying. */
const group = (prefix: string, channel: Channel, n: number, buyers: number, daysAgo: number): Visit[] =>
  Array.from({ length: n }, (_, i) => ({ visitor: `${prefix}-${i}`, channel, daysAgo, buys: i < buyers }));
const VISITS: Visit[] = [
  ...group("ps", "paid_search", 4, 1, 2),
  ...group("em", "email", 3, 2, 3),
  ...group("os", "organic_search", 5, 1, 1),
  ...group("di", "direct", 2, 0, 4),
  // Outside the last 7 days: every one bought, which must not make referral the week's best.
  ...group("old", "referral", 3, 3, 12),
];

/** The truth, from the visits above alone: the last 7 days are today and the 6 days before it. */
const lastWeek = VISITS.filter((v) => v.daysAgo < 7);
const TRUE_VISITORS = new Set(lastWeek.map((v) => v.visitor)).size;
const rates = new Map<string, number>();
for (const ch of new Set(lastWeek.map((v) => v.channel))) {
  const of = lastWeek.filter((v) => v.channel === ch);
  rates.set(ch, of.filter((v) => v.buys).length / of.length);
}
const [TRUE_BEST, TRUE_BEST_RATE] = [...rates].sort((a, b) => b[1] - a[1])[0]!;

let t: TestApp;
let a: Tenant;
let url: URL;
let experimentId: string;
const clients: Client[] = [];

/** Sends the visits as a site's server would: pages and purchases through Segment's batch API. */
async function sendVisits(tenant: Tenant) {
  const batch = VISITS.flatMap((v) => {
    const ts = NOW - v.daysAgo * DAY;
    const page = {
      type: "page",
      anonymousId: v.visitor,
      properties: entryOf(v.channel, "/pricing"),
      context: { userAgent: BROWSER_UA },
      timestamp: new Date(ts).toISOString(),
    };
    if (!v.buys) return [page];
    const purchase = {
      type: "track",
      event: "purchase",
      anonymousId: v.visitor,
      properties: { revenue: 10, url: `${SITE}/checkout` },
      context: { userAgent: BROWSER_UA },
      timestamp: new Date(ts + 60_000).toISOString(),
    };
    return [page, purchase];
  });
  const basic = { authorization: `Basic ${Buffer.from(`${tenant.apiKey}:`).toString("base64")}` };
  const res = await tenant.post("/v1/batch", { batch }, { as: "none", headers: basic });
  expect(res.status, res.text).toBe(200);
}

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = await mcpClient(url, headers);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  url = await listenForMcp(t);
  a = await t.tenant();
  expect((await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" })).status).toBe(
    201,
  );
  await sendVisits(a);
  const lead = await a.post("/api/identity", {
    visitorId: "em-0",
    leadId: "lead-mcp",
    traits: { email: "mcp@example.com", plan: "pro" },
  });
  expect(lead.status, lead.text).toBeLessThan(300);
  const exp = await a.post("/api/experiments", {
    name: "Pricing headline",
    targetUrl: `${SITE}/pricing`,
    variants: [{ name: "control" }, { name: "b" }],
  });
  expect(exp.status, exp.text).toBe(201);
  experimentId = exp.body.id;
  const flag = await a.post("/api/flags", {
    key: "new-checkout",
    valueType: "boolean",
    defaultValue: false,
    rules: [{ id: "pro-users", type: "force", condition: { plan: "pro" }, value: true }],
  });
  expect(flag.status, flag.text).toBe(201);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t?.close();
});

const READ_TOOLS = [
  "analytics_summary",
  "analytics_breakdown",
  "analytics_timeseries",
  "analytics_funnel",
  "analytics_retention",
  "analytics_trends",
  "list_experiments",
  "get_experiment",
  "list_flags",
  "evaluate_flag",
  "get_lead",
];
const WRITE_TOOLS = ["create_annotation", "set_flag_enabled"];

describe("MCP at /mcp", () => {
  it("lists the read tools, and the write tools for a secret key (which may call the write routes)", async () => {
    const client = await connect(bearer(a.apiKey));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // The input schema is the HTTP API's own TypeBox schema, sent as JSON Schema.
    expect(byName.get("analytics_breakdown")!.inputSchema).toEqual(
      JSON.parse(JSON.stringify(BreakdownQuery)),
    );
    for (const name of READ_TOOLS) expect(byName.get(name)!.annotations?.readOnlyHint, name).toBe(true);
    for (const name of WRITE_TOOLS) expect(byName.get(name)!.annotations?.readOnlyHint, name).toBe(false);
  });

  it("answers 'visitors last week, and which channel converted best?' as the truth says", async () => {
    const client = await connect(bearer(a.apiKey));
    const summary = await call(client, "analytics_summary", { period: "7d" });
    expect(summary.visitors).toBe(TRUE_VISITORS);
    const breakdown = await call(client, "analytics_breakdown", { by: "channel", period: "7d" });
    const best = [...breakdown.rows].sort((x: any, y: any) => y.conversionRate - x.conversionRate)[0];
    expect(best.key).toBe(TRUE_BEST);
    expect(best.conversionRate).toBe(Math.round(TRUE_BEST_RATE * 1e6) / 1e6);
    // The answers are the HTTP API's, shape and all.
    expect(summary).toEqual((await a.get("/api/analytics/summary?period=7d")).body);
    expect(breakdown).toEqual((await a.get("/api/analytics/breakdown?by=channel&period=7d")).body);
  });

  it("every read tool answers what its HTTP route answers", async () => {
    const client = await connect({ "x-api-key": a.apiKey });
    const funnel = { steps: [{ eventType: "pageview" }, { eventType: "purchase" }], period: "30d" };
    const trends = {
      series: [
        { event: "pageview", measure: "unique_people" },
        { event: "purchase", measure: "total" },
      ],
      formulas: [{ expression: "B / A * 100" }],
      period: "30d",
    };
    const pairs: [string, Record<string, unknown>, Promise<{ status: number; body: unknown }>][] = [
      ["analytics_timeseries", { period: "30d" }, a.get("/api/analytics/timeseries?period=30d")],
      ["analytics_funnel", funnel, a.post("/api/analytics/funnel", funnel)],
      ["analytics_retention", { period: "30d" }, a.get("/api/analytics/retention?period=30d")],
      ["analytics_trends", trends, a.post("/api/analytics/trends", trends)],
      ["list_experiments", {}, a.get("/api/experiments")],
      ["get_experiment", { id: experimentId }, a.get(`/api/experiments/${experimentId}`)],
      ["list_flags", {}, a.get("/api/flags")],
      [
        "evaluate_flag",
        { key: "new-checkout", attributes: { plan: "pro" } },
        a.post("/api/flags/new-checkout/evaluate", { attributes: { plan: "pro" } }),
      ],
      ["get_lead", { id: "lead-mcp" }, a.get("/api/leads/lead-mcp")],
    ];
    const answers = await Promise.all(pairs.map(([name, args]) => call(client, name, args)));
    for (const [i, [name, , http]] of pairs.entries()) {
      const res = await http;
      expect(res.status, name).toBe(200);
      expect(answers[i], name).toEqual(res.body);
    }
    expect(
      (await call(client, "evaluate_flag", { key: "new-checkout", attributes: { plan: "pro" } })).value,
    ).toBe(true);
  });

  it("write tools act as the key: an annotation, and a flag switched off and on", async () => {
    const client = await connect(bearer(a.apiKey));
    const note = await call(client, "create_annotation", { date: "2026-01-05", text: "Launched pricing v2" });
    const listed = await a.get("/api/annotations");
    expect(listed.body).toContainEqual(note);
    expect(note).toMatchObject({
      date: "2026-01-05",
      text: "Launched pricing v2",
      createdBy: { kind: "apiKey" },
    });

    expect(await call(client, "set_flag_enabled", { key: "new-checkout", enabled: false })).toMatchObject({
      key: "new-checkout",
      enabled: false,
    });
    expect((await a.get("/api/flags/new-checkout")).body.enabled).toBe(false);
    await call(client, "set_flag_enabled", { key: "new-checkout", enabled: true });
    expect((await a.get("/api/flags/new-checkout")).body.enabled).toBe(true);
    const history = await a.get("/api/flags/new-checkout/history");
    expect(history.body[0].actor).toMatchObject({ type: "apiKey" });
  });

  it("a bad argument is a tool error naming it, and the server goes on answering", async () => {
    const client = await connect(bearer(a.apiKey));
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ["analytics_breakdown", { by: "planet" }, /by/],
      ["analytics_summary", { period: "custom" }, /from is required/],
      ["analytics_summary", { filter: "not json" }, /filter must be JSON/],
      ["analytics_funnel", { steps: [{ eventType: "pageview" }] }, /steps/],
      ["set_flag_enabled", { key: "new-checkout", enabled: "no" }, /enabled/],
      ["set_flag_enabled", { key: "no-such-flag", enabled: true }, /not found/],
      ["get_lead", {}, /id/],
    ];
    for (const [name, args, message] of bad) {
      const res = (await client.callTool({ name, arguments: args })) as ToolResult;
      expect(res.isError, name).toBe(true);
      expect(res.content[0]!.text, name).toMatch(message);
    }
    await expect(client.callTool({ name: "drop_tables", arguments: {} })).rejects.toThrow(/drop_tables/);
    expect((await call(client, "analytics_summary", { period: "7d" })).visitors).toBe(TRUE_VISITORS);
  });

  it("another project's key sees its own project only", async () => {
    const b = await t.tenant();
    const client = await connect(bearer(b.apiKey));
    expect((await call(client, "analytics_summary", { period: "7d" })).visitors).toBe(0);
    expect(await call(client, "list_flags")).toEqual([]);
    const res = (await client.callTool({
      name: "get_experiment",
      arguments: { id: experimentId },
    })) as ToolResult;
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/not found/);
  });
});
