/**
 * Bulk seeding of analytics' derived tables for a synthetic workload of N stored events, written
 * straight through better-sqlite3 in one transaction (what the processor would have produced):
 * 10 events per visitor in 2 sessions of 5 events over 120 days, 10 channels, 20% of visitors
 * paired into leads of two visitors, 2% of sessions converting (half with revenue), 0.2% refunds.
 * Conversions are credited with the same code the processor uses (credit-store.ts).
 */
import type SQLite from "better-sqlite3";
import { creditsFor } from "../../src/modules/analytics/credit-store.js";
import { VisitorSketch, visitorHash } from "../../src/modules/analytics/hll.js";
import type { Touch } from "../../src/modules/analytics/models.js";
import { ALL_CHANNELS } from "../../src/modules/analytics/rollup-store.js";
import { weekOf } from "../../src/modules/analytics/sketches.js";

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

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SeedCounts {
  events: number;
  visitors: number;
  sessions: number;
  conversions: number;
  rollupRows: number;
}

export function seedAnalytics(
  sqlite: SQLite.Database,
  projectId: string,
  events: number,
  now: number,
): SeedCounts {
  const random = rng(42);
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
    "insert into analytics_touchpoints (project_id, session_id, visitor_id, person_key, channel, ts) values (?, ?, ?, ?, ?, ?)",
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
      const touches: Touch[] = [];
      const pending: { visitorId: string; ts: number; ch: string; s: number }[] = [];
      for (const m of members) {
        const visitorId = `v${m}`;
        if (leadId) insertLink.run(projectId, visitorId, leadId);
        const hash = visitorHash(visitorId);
        for (let s = 0; s < 2; s++) {
          const ts = now - Math.floor(random() * 120 * DAY);
          const ch = channel();
          insertTouch.run(projectId, `s${m}_${s}`, visitorId, `v:${visitorId}`, ch, ts);
          touches.push({ channel: ch, ts });
          pending.push({ visitorId, ts, ch, s });
          sessions++;
          const day = Math.floor(ts / DAY);
          row(day, ch).sketch.add(hash);
          row(day, ALL_CHANNELS).sketch.add(hash);
          weekRow(weekOf(day), ch).add(hash);
          weekRow(weekOf(day), ALL_CHANNELS).add(hash);
        }
      }
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
    const insertCredit = sqlite.prepare(
      "insert into analytics_attribution_daily (project_id, day, model, channel, credited, revenue) values (?, ?, ?, ?, ?, ?)",
    );
    for (const [k, a] of credited) {
      const [day, model, ch] = k.split("|");
      insertCredit.run(projectId, Number(day), model, ch, a.credited, a.revenue);
    }
  })();
  return { events, visitors, sessions, conversions, rollupRows: rollup.size + weeks.size + credited.size };
}
