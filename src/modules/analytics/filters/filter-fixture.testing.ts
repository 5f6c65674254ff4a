/**
 * Test support: a small project every filter, cohort, path and picker test reads, with
 * its figures computed by hand in the tests. All events are within the last 7 days.
 *
 *  phone (iPhone), from a newsletter (email, utm_campaign=spring): pageview /pricing {plan: pro},
 *    pageview /checkout, purchase {revenue: 40, plan: pro} at /thanks — one session;
 *  laptop (Windows, Chrome), from Google (organic_search): pageview /, pageview /pricing;
 *  mac (macOS, Firefox), from news.ycombinator.com (organic_social): pageview /pricing, pageview /docs;
 *    linked to lead Lmac {plan: free};
 *  crawler (Googlebot): pageview /pricing — a bot, left out everywhere;
 *  lead L1: a server $revenue of 25 (batch userId), no web visit.
 */
export const SHOP = "https://shop.example.com";
export const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
export const WINDOWS_CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
export const MAC_FIREFOX =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

interface Caller {
  publicKey: string;
  post: (url: string, body: unknown, opts?: object) => Promise<{ status: number; body: unknown }>;
}

/** Minutes from the seed's first event to its last. */
const SPAN_MIN = 30;
const DAY_MS = 86_400_000;

/**
 * The seed's first event: about 5 hours before `now`, moved earlier when its events would straddle
 * midnight UTC. The tests count the project's days and weeks (a picker counts rollup rows per
 * week): events on two days made them flaky between 04:30 and 05:00 UTC.
 */
export function seedStart(now: number): number {
  const t0 = now - 5 * 3_600_000;
  const midnight = Math.floor((t0 + SPAN_MIN * 60_000) / DAY_MS) * DAY_MS;
  return midnight > t0 ? midnight - (SPAN_MIN + 1) * 60_000 : t0;
}

export async function seedFilterProject(a: Caller, now = Date.now()): Promise<void> {
  const ok = (res: { status: number; body: unknown }, what: string) => {
    if (res.status !== 200 && res.status !== 201)
      throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  ok(await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" }), "goal");
  const t0 = seedStart(now);
  const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();
  const track = async (ua: string, body: Record<string, unknown>) =>
    ok(
      await a.post(
        "/api/events",
        { projectKey: a.publicKey, ...body },
        { as: "none", headers: { "user-agent": ua } },
      ),
      "track",
    );
  const newsletter = `${SHOP}/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=spring`;
  await track(IPHONE, {
    type: "pageview",
    visitorId: "phone",
    url: newsletter,
    data: { plan: "pro" },
    timestamp: at(0),
  });
  await track(IPHONE, { type: "pageview", visitorId: "phone", url: `${SHOP}/checkout`, timestamp: at(2) });
  await track(IPHONE, {
    type: "purchase",
    visitorId: "phone",
    url: `${SHOP}/thanks`,
    data: { revenue: 40, plan: "pro" },
    timestamp: at(3),
  });
  await track(WINDOWS_CHROME, {
    type: "pageview",
    visitorId: "laptop",
    url: `${SHOP}/`,
    referrer: "https://www.google.com/search?q=shop",
    timestamp: at(10),
  });
  await track(WINDOWS_CHROME, {
    type: "pageview",
    visitorId: "laptop",
    url: `${SHOP}/pricing`,
    timestamp: at(11),
  });
  await track(MAC_FIREFOX, {
    type: "pageview",
    visitorId: "mac",
    url: `${SHOP}/pricing`,
    referrer: "https://news.ycombinator.com/item?id=1",
    timestamp: at(20),
  });
  await track(MAC_FIREFOX, { type: "pageview", visitorId: "mac", url: `${SHOP}/docs`, timestamp: at(21) });
  await track(GOOGLEBOT, {
    type: "pageview",
    visitorId: "crawler",
    url: `${SHOP}/pricing`,
    timestamp: at(22),
  });
  ok(
    await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        userId: "L1",
        events: [
          { type: "$revenue", url: `${SHOP}/billing`, data: { revenue: 25 }, timestamp: at(SPAN_MIN) },
        ],
      },
      { as: "none", headers: { "user-agent": WINDOWS_CHROME } },
    ),
    "server event",
  );
  ok(await a.post("/api/identity", { visitorId: "mac", leadId: "Lmac", traits: { plan: "free" } }), "link");
}

/**
 * `seedFilterProject`'s people, and two cohorts of them (flags' targeting tests): "Buyers" (did
 * purchase: phone) and "Free plan" (lead property plan is free: Lmac, with its visitor mac).
 */
export async function seedCohortProject(a: Caller): Promise<{ buyers: string; free: string }> {
  await seedFilterProject(a);
  const cohort = async (name: string, definition: unknown) => {
    const res = await a.post("/api/cohorts", { name, definition });
    if (res.status !== 201) throw new Error(`cohort ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { id: string }).id;
  };
  return {
    buyers: await cohort("Buyers", { conditions: [{ type: "event", event: "purchase" }] }),
    free: await cohort("Free plan", {
      conditions: [{ type: "property", property: "plan", op: "is", value: "free" }],
    }),
  };
}
