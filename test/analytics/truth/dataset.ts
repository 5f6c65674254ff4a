/**
 * A growth team's month, generated from a seed, with every fact the truth needs kept beside what
 * is sent: 2,000 web visitors over 30 days on seven channels and three devices, a signup →
 * activation → purchase funnel (signups on the web, activations and purchases from servers),
 * "upgrade clicked" events (a second conversion goal), leads stitched from one or two devices with
 * traits, leads that only servers ever saw, and crawlers. Sessions are days apart, so each is
 * exactly the pages the generator put in it.
 */

export const DAY = 86_400_000;

export const CHANNELS = [
  "direct",
  "organic_search",
  "paid_search",
  "organic_social",
  "paid_social",
  "email",
  "referral",
] as const;
export type Channel = (typeof CHANNELS)[number];

export const DEVICES = {
  mobile: {
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    browser: "Mobile Safari",
    os: "iOS",
  },
  windows: {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    browser: "Chrome",
    os: "Windows",
  },
  mac: {
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0",
    browser: "Firefox",
    os: "Mac OS",
  },
} as const;
export type DeviceName = keyof typeof DEVICES;
/** The `device` dimension Lift derives from each User-Agent (a desktop browser is "desktop"). */
export const DEVICE_TYPE: Record<DeviceName, string> = {
  mobile: "mobile",
  windows: "desktop",
  mac: "desktop",
};

export const SITE = "https://shop.example.com";
const BOT_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

/** How a session's first page says where it came from (channels.json's rules). */
export function entryOf(channel: Channel, path: string): { url: string; referrer?: string } {
  const url = `${SITE}${path}`;
  switch (channel) {
    case "direct":
      return { url };
    case "organic_search":
      return { url, referrer: "https://www.google.com/" };
    case "paid_search":
      return { url: `${url}?utm_source=google&utm_medium=cpc&utm_campaign=brand&utm_term=analytics+tool` };
    case "organic_social":
      return { url, referrer: "https://www.facebook.com/" };
    case "paid_social":
      return { url: `${url}?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring` };
    case "email":
      return {
        url: `${url}?utm_source=newsletter&utm_medium=email&utm_campaign=weekly&utm_content=header%20link`,
      };
    case "referral":
      return { url, referrer: "https://blog.partner.org/review" };
  }
}

export interface Page {
  path: string;
  ts: number;
}
export interface Session {
  visitor: string;
  channel: Channel;
  device: DeviceName;
  start: number;
  pages: Page[];
}
/** A web event that is not a page view (sent by the snippet): it belongs to the session it falls in. */
export interface WebAction {
  visitor: string;
  type: "signup" | "upgrade_click";
  ts: number;
  path: string;
  session: Session;
}
/** A server's event: a visitor's (anonymousId) or a lead's (userId). */
export interface ServerEvent {
  type: "activation" | "purchase";
  ts: number;
  visitor?: string;
  lead?: string;
  revenue?: number;
}
export interface Visitor {
  id: string;
  device: DeviceName;
  /** the country its page views carry (`$country`), if any */
  country?: string;
  sessions: Session[];
  lead?: string;
}
export interface Lead {
  id: string;
  visitors: string[];
  plan: string;
}

export interface Dataset {
  now: number;
  visitors: Visitor[];
  sessions: Session[];
  actions: WebAction[];
  server: ServerEvent[];
  leads: Lead[];
  /** leads no browser ever showed (payments of people who never visited) */
  serverOnlyLeads: Lead[];
  bots: { visitor: string; ts: number; path: string }[];
}

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
  };
}

const PAGES = ["/", "/pricing", "/features", "/blog/launch", "/docs"];
/** Visitors' countries, by their index (not drawn: the seed's other draws stay as they were); every seventh has none. */
const COUNTRIES = ["US", "DE", "FR", "GB", "IN"];
const countryOf = (i: number) => (i % 7 === 6 ? undefined : COUNTRIES[i % COUNTRIES.length]);
/** Channel weights: direct and search lead, as on most sites. */
const CHANNEL_WEIGHTS: [Channel, number][] = [
  ["direct", 26],
  ["organic_search", 24],
  ["paid_search", 14],
  ["organic_social", 8],
  ["paid_social", 10],
  ["email", 10],
  ["referral", 8],
];

export function generate(seed = 41, now = Date.now(), visitorCount = 2_000): Dataset {
  const r = prng(seed);
  const weighted = (): Channel => {
    let x = r.int(100);
    for (const [c, w] of CHANNEL_WEIGHTS) {
      if (x < w) return c;
      x -= w;
    }
    return "direct";
  };
  const today = Math.floor(now / DAY) * DAY;
  // Events from 29 days before today's start up to two hours ago (never in the future).
  const latest = Math.min(now - 2 * 3_600_000, today + DAY - 1);
  const at = (dayOffset: number, minute: number) =>
    Math.min(today - dayOffset * DAY + minute * 60_000, latest - 60 * 60_000);

  const visitors: Visitor[] = [];
  const sessions: Session[] = [];
  const actions: WebAction[] = [];
  const server: ServerEvent[] = [];
  const leads: Lead[] = [];
  const devices = Object.keys(DEVICES) as DeviceName[];

  for (let i = 0; i < visitorCount; i++) {
    const v: Visitor = { id: `vis-${i}`, device: r.pick(devices), sessions: [] };
    const country = countryOf(i);
    if (country) v.country = country;
    visitors.push(v);
    // First visit on days 0–29 ago; up to three more, each at least a day later (sessions apart).
    let day = r.int(30);
    const visits = 1 + (r.chance(0.45) ? 1 + r.int(3) : 0);
    for (let s = 0; s < visits && day >= 0; s++) {
      const start = at(day, 60 + r.int(20 * 60));
      const channel = s === 0 ? weighted() : r.chance(0.5) ? "direct" : weighted();
      const n = 1 + r.int(5);
      const pages: Page[] = [];
      for (let p = 0; p < n; p++)
        pages.push({ path: p === 0 ? r.pick(PAGES) : r.pick(PAGES), ts: start + p * 60_000 });
      const session: Session = { visitor: v.id, channel, device: v.device, start, pages };
      v.sessions.push(session);
      sessions.push(session);
      day -= 1 + r.int(6);
    }
    const first = v.sessions[0]!;
    const paid = first.channel === "paid_search" || first.channel === "paid_social";
    // Upgrade clicks: a second goal, common (a third of visitors), in the visitor's last session.
    const last = v.sessions[v.sessions.length - 1]!;
    if (r.chance(0.33))
      actions.push({
        visitor: v.id,
        type: "upgrade_click",
        ts: lastPage(last) + 20_000,
        path: "/pricing",
        session: last,
      });
    // The funnel: signup on the web (paid traffic converts better), activation and purchase from servers.
    if (r.chance(paid ? 0.35 : 0.18)) {
      const signupAt = first.pages[0]!.ts + 30_000;
      actions.push({ visitor: v.id, type: "signup", ts: signupAt, path: "/signup", session: first });
      const stitched = r.chance(0.5);
      if (stitched) {
        const lead: Lead = {
          id: `lead-${i}@example.com`,
          visitors: [v.id],
          plan: r.pick(["free", "pro", "team"]),
        };
        v.lead = lead.id;
        leads.push(lead);
      }
      const who = stitched ? { lead: v.lead } : { visitor: v.id };
      if (r.chance(paid ? 0.55 : 0.45)) {
        const activatedAt = Math.min(signupAt + (1 + r.int(48)) * 3_600_000, latest - 30 * 60_000);
        server.push({ type: "activation", ts: activatedAt, ...who });
        if (r.chance(0.42)) {
          const boughtAt = Math.min(activatedAt + (1 + r.int(72)) * 3_600_000, latest - 20 * 60_000);
          server.push({ type: "purchase", ts: boughtAt, revenue: 20 + r.int(180), ...who });
        }
      }
    }
  }
  // A second device for a fifth of the leads: another visitor, another session, the same lead.
  for (const lead of leads) {
    if (!r.chance(0.2)) continue;
    const owner = visitors.find((v) => v.id === lead.visitors[0])!;
    const id = `${owner.id}-b`;
    const device: DeviceName = owner.device === "mobile" ? "windows" : "mobile";
    // Clamped ten minutes after the clamp of `at`, so never in the same millisecond as the owner's
    // first session (a tie the truth could not break as Lift does).
    const start = Math.min(owner.sessions[0]!.start + (2 + r.int(48)) * 3_600_000, latest - 50 * 60_000);
    const session: Session = {
      visitor: id,
      channel: r.pick(CHANNELS),
      device,
      start,
      pages: [
        { path: "/", ts: start },
        { path: "/pricing", ts: start + 60_000 },
      ],
    };
    visitors.push({ id, device, sessions: [session], lead: lead.id });
    sessions.push(session);
    lead.visitors.push(id);
  }
  // People who only ever paid: a server's purchase for a lead no browser showed.
  const serverOnlyLeads: Lead[] = [];
  for (let i = 0; i < 40; i++) {
    const lead: Lead = { id: `server-only-${i}@example.com`, visitors: [], plan: "pro" };
    serverOnlyLeads.push(lead);
    server.push({
      type: "purchase",
      ts: at(r.int(30), 60 + r.int(20 * 60)),
      lead: lead.id,
      revenue: 50 + r.int(100),
    });
  }
  const bots = Array.from({ length: 120 }, (_, i) => ({
    visitor: `bot-${i % 30}`,
    ts: at(r.int(30), 60 + r.int(600)),
    path: r.pick(PAGES),
  }));
  return { now, visitors, sessions, actions, server, leads, serverOnlyLeads, bots };
}

const lastPage = (s: Session) => s.pages[s.pages.length - 1]!.ts;

export const BOT_USER_AGENT = BOT_UA;
