/**
 * Bulk seeding of analytics' derived tables for a synthetic workload of N stored events, written
 * straight through better-sqlite3 in one transaction (what the processor would have produced):
 * 10 events per visitor in 2 sessions of 5 events over 120 days, 10 channels, 20% of visitors
 * paired into leads of two visitors, 2% of sessions converting (half with revenue), 0.2% refunds.
 * Conversions are credited with the same code the processor uses (credit-store.ts).
 * Breakdowns: each session has a source, campaign, landing page (300, skewed), referrer domain,
 * device, browser and OS, stored on its touchpoint and rolled up per dimension × day × key as the
 * processor does (visitors on the session's start day; conversions under the person's first touch);
 * each session's events are 4 pageviews and one of 12 other types.
 */
import type SQLite from "better-sqlite3";
import { creditsFor } from "../../src/modules/analytics/ingest/credit-store.js";
import { VisitorSketch, visitorHash } from "../../src/modules/analytics/ingest/hll.js";
import type { Touch } from "../../src/modules/analytics/ingest/models.js";
import { ALL_CHANNELS } from "../../src/modules/analytics/ingest/rollup-store.js";
import { weekOf } from "../../src/modules/analytics/ingest/sketches.js";
import { mulberry32 } from "../../src/platform/stats/stats.js";

const DAY = 86_400_000;
const CHANNELS = [
  ["direct", 25],
  ["organic_search", 25],
  ["paid_search", 12],
  ["organic_social", 8],
  ["paid_social", 8],
  ["email", 8],
  ["referral", 8],
  ["display", 3],
  ["affiliate", 2],
  ["ai_assistant", 1],
] as const;

const pick = <T>(list: readonly T[], r: number): T =>
  list[Math.min(list.length - 1, Math.floor(r * list.length))]!;
const PAGES = Array.from({ length: 300 }, (_, i) => `https://shop.example.com/p/${i}`);
const DOMAINS = Array.from({ length: 50 }, (_, i) => `site${i}.example.org`);
const CAMPAIGNS = Array.from({ length: 20 }, (_, i) => `campaign-${i}`);
const SOURCES = Array.from({ length: 30 }, (_, i) => `source${i}`);
const DEVICES = ["desktop", "desktop", "desktop", "mobile", "mobile", "tablet"];
const BROWSERS = [
  "Chrome",
  "Chrome",
  "Chrome",
  "Safari",
  "Mobile Safari",
  "Firefox",
  "Edge",
  "Samsung Browser",
];
const OSES = ["Windows", "Windows", "Mac OS", "iOS", "Android", "Linux"];
const OTHER_TYPES = Array.from({ length: 12 }, (_, i) => `action_${i}`);
type Dims = Record<string, string>;

export interface SeedCounts {
  events: number;
  visitors: number;
  sessions: number;
  conversions: number;
  rollupRows: number;
  breakdownRows: number;
}

export function seedAnalytics(
  sqlite: SQLite.Database,
  projectId: string,
  events: number,
  now: number,
): SeedCounts {
  const random = mulberry32(42);
  const totalWeight = CHANNELS.reduce((s, [, w]) => s + w, 0);
  const channel = () => {
    let r = random() * totalWeight;
    for (const [c, w] of CHANNELS) {
      r -= w;
      if (r < 0) return c;
    }
    return "direct";
  };
  const visitors = Math.floor(events / 10);
  const insertTouch = sqlite.prepare(
    "insert into analytics_touchpoints (project_id, session_id, visitor_id, person_key, channel, ts, source, campaign, landing_page, referrer_domain, device, browser, os) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertConv = sqlite.prepare(
    "insert into analytics_conversions (event_id, project_id, visitor_id, person_key, lead_id, goal_id, type, revenue, counted, channel, ts, credits) values (?, ?, ?, ?, ?, null, ?, ?, ?, ?, ?, ?)",
  );
  const insertLink = sqlite.prepare(
    "insert into analytics_links (project_id, visitor_id, lead_id) values (?, ?, ?)",
  );
  const rollup = new Map<
    string,
    { sketch: VisitorSketch; conversions: number; revenue: number; leads: number }
  >();
  const row = (day: number, ch: string) => {
    const k = `${day}|${ch}`;
    let r = rollup.get(k);
    if (!r) {
      r = { sketch: new VisitorSketch(), conversions: 0, revenue: 0, leads: 0 };
      rollup.set(k, r);
    }
    return r;
  };
  const weeks = new Map<string, VisitorSketch>();
  const weekRow = (week: number, ch: string) => {
    const k = `${week}|${ch}`;
    let w = weeks.get(k);
    if (!w) {
      w = new VisitorSketch();
      weeks.set(k, w);
    }
    return w;
  };
  const credited = new Map<string, { credited: number; revenue: number }>();
  const breakdown = new Map<string, { sketch: VisitorSketch; conversions: number; revenue: number }>();
  const bRow = (day: number, dim: string, key: string) => {
    const k = `${day}\u0000${dim}\u0000${key}`;
    let r = breakdown.get(k);
    if (!r) {
      r = { sketch: new VisitorSketch(), conversions: 0, revenue: 0 };
      breakdown.set(k, r);
    }
    return r;
  };
  const bWeeks = new Map<string, { sketch: VisitorSketch; conversions: number; revenue: number }>();
  const bWeek = (week: number, dim: string, key: string) => {
    const k = `${week}\u0000${dim}\u0000${key}`;
    let w = bWeeks.get(k);
    if (!w) {
      w = { sketch: new VisitorSketch(), conversions: 0, revenue: 0 };
      bWeeks.set(k, w);
    }
    return w;
  };
  const countVisitor = (day: number, dim: string, key: string, hash: number) => {
    bRow(day, dim, key).sketch.add(hash);
    bWeek(weekOf(day), dim, key).sketch.add(hash);
  };
  const countConversion = (day: number, dim: string, key: string, counted: number, revenue: number) => {
    for (const r of [bRow(day, dim, key), bWeek(weekOf(day), dim, key)]) {
      r.conversions += counted;
      r.revenue += revenue;
    }
  };
  const sessionDims = (ch: string): Dims => ({
    source: ch === "direct" ? "(none)" : pick(SOURCES, random()),
    campaign: ch.startsWith("paid") || ch === "email" ? pick(CAMPAIGNS, random()) : "(none)",
    // skewed: a few pages take most landings
    landing_page: pick(PAGES, random() ** 3),
    referrer_domain: ch === "direct" || ch === "email" ? "(none)" : pick(DOMAINS, random() ** 2),
    device: pick(DEVICES, random()),
    browser: pick(BROWSERS, random()),
    os: pick(OSES, random()),
  });
  let sessions = 0;
  let conversions = 0;
  sqlite.transaction(() => {
    // Persons: visitors 10k and 10k+1 form a lead (20% of visitors); every other visitor is alone.
    for (let v = 0; v < visitors; ) {
      const pair = v % 10 === 0 && v + 1 < visitors;
      const members = pair ? [v, v + 1] : [v];
      v += members.length;
      const leadId = pair ? `lead_${members[0]}` : null;
      const person = leadId ? `l:${leadId}` : `v:v${members[0]}`;
      const touches: (Touch & { dims: Dims })[] = [];
      const pending: { visitorId: string; ts: number; ch: string; s: number }[] = [];
      for (const m of members) {
        const visitorId = `v${m}`;
        if (leadId) insertLink.run(projectId, visitorId, leadId);
        const hash = visitorHash(visitorId);
        for (let s = 0; s < 2; s++) {
          const ts = now - Math.floor(random() * 120 * DAY);
          const ch = channel();
          const dims = sessionDims(ch);
          const stored = (k: string) => (dims[k] === "(none)" ? null : dims[k]);
          insertTouch.run(
            projectId,
            `s${m}_${s}`,
            visitorId,
            `v:${visitorId}`,
            ch,
            ts,
            stored("source"),
            stored("campaign"),
            stored("landing_page"),
            stored("referrer_domain"),
            stored("device"),
            stored("browser"),
            stored("os"),
          );
          touches.push({ channel: ch, ts, dims });
          pending.push({ visitorId, ts, ch, s });
          sessions++;
          const day = Math.floor(ts / DAY);
          row(day, ch).sketch.add(hash);
          row(day, ALL_CHANNELS).sketch.add(hash);
          weekRow(weekOf(day), ch).add(hash);
          weekRow(weekOf(day), ALL_CHANNELS).add(hash);
          for (const [dim, key] of Object.entries(dims)) countVisitor(day, dim, key, hash);
          countVisitor(day, "event_type", "pageview", hash);
          countVisitor(day, "event_type", pick(OTHER_TYPES, random()), hash);
        }
      }
      const firstTouch = touches.reduce((a, b) => (b.ts < a.ts ? b : a));
      if (leadId) row(Math.floor(Math.min(...touches.map((t) => t.ts)) / DAY), touches[0]!.channel).leads++;
      for (const p of pending) {
        const x = random();
        if (x >= 0.022) continue;
        const refund = x < 0.002;
        const revenue = refund ? -25 : x < 0.012 ? 50 : 0;
        const counted = refund ? 0 : 1;
        const ts = p.ts + 120_000;
        const day = Math.floor(ts / DAY);
        const credits = creditsFor(touches, { ts, channel: p.ch });
        for (const [model, chs] of Object.entries(credits))
          for (const [ch, c] of Object.entries(chs)) {
            const k = `${day}|${model}|${ch}`;
            const a = credited.get(k) ?? { credited: 0, revenue: 0 };
            a.credited += c * counted;
            a.revenue += c * revenue;
            credited.set(k, a);
          }
        insertConv.run(
          `e${p.visitorId}_${p.s}`,
          projectId,
          p.visitorId,
          person,
          leadId,
          refund ? "$revenue" : "purchase",
          revenue,
          counted,
          p.ch,
          ts,
          JSON.stringify(credits),
        );
        const r = row(day, p.ch);
        r.conversions += counted;
        r.revenue += revenue;
        for (const [dim, key] of Object.entries(firstTouch.dims))
          countConversion(day, dim, key, counted, revenue);
        const type = refund ? "$revenue" : "purchase";
        countVisitor(day, "event_type", type, visitorHash(p.visitorId));
        countConversion(day, "event_type", type, counted, revenue);
        conversions++;
      }
    }
    const insertRollup = sqlite.prepare(
      "insert into analytics_daily (project_id, day, channel, visitors_sketch, conversions, revenue, leads) values (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const [k, r] of rollup) {
      const [day, ch] = k.split("|");
      insertRollup.run(projectId, Number(day), ch, r.sketch.serialize(), r.conversions, r.revenue, r.leads);
    }
    const insertWeek = sqlite.prepare(
      "insert into analytics_weekly (project_id, week, channel, visitors_sketch) values (?, ?, ?, ?)",
    );
    for (const [k, w] of weeks) {
      const [week, ch] = k.split("|");
      insertWeek.run(projectId, Number(week), ch, w.serialize());
    }
    const insertBreakdown = sqlite.prepare(
      "insert into analytics_breakdown_daily (project_id, dimension, day, key, visitors_sketch, conversions, revenue) values (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const [k, r] of breakdown) {
      const [day, dim, key] = k.split("\u0000");
      insertBreakdown.run(projectId, dim, Number(day), key, r.sketch.serialize(), r.conversions, r.revenue);
    }
    const insertBreakdownWeek = sqlite.prepare(
      "insert into analytics_breakdown_weekly (project_id, dimension, week, key, visitors_sketch, conversions, revenue) values (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const [k, w] of bWeeks) {
      const [week, dim, key] = k.split("\u0000");
      insertBreakdownWeek.run(
        projectId,
        dim,
        Number(week),
        key,
        w.sketch.serialize(),
        w.conversions,
        w.revenue,
      );
    }
    const insertCredit = sqlite.prepare(
      "insert into analytics_attribution_daily (project_id, day, model, channel, credited, revenue) values (?, ?, ?, ?, ?, ?)",
    );
    for (const [k, a] of credited) {
      const [day, model, ch] = k.split("|");
      insertCredit.run(projectId, Number(day), model, ch, a.credited, a.revenue);
    }
  })();
  return {
    events,
    visitors,
    sessions,
    conversions,
    rollupRows: rollup.size + weeks.size + credited.size,
    breakdownRows: breakdown.size + bWeeks.size,
  };
}
