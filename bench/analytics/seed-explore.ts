/**
 * Seed for the filter, cohort and path benchmarks (issue 34), on SQLite or PostgreSQL: N stored
 * events and what the processors would have derived from them, consistent with each other.
 * - 10 events per visitor `v<n>` in 2 sessions of 5 events (4 pageviews over 50 pages, /pricing
 *   the second; then signup, purchase or one of 12 actions) over 120 days, stored in arrival order;
 *   a quarter of first pageviews carry `{"plan": "pro"}`.
 * - A touchpoint per session: a channel (10) and its dimensions (device, browser, OS, 300 landing
 *   pages …); `analytics_activity`; 20% of visitors paired into leads (`analytics_links`);
 *   purchases (10% of visitors) as conversions under the person's first-touch channel;
 * - the channel rollups (daily and weekly visitor sketches, conversions), for the rollup path.
 */
import { sql } from "kysely";
import type { Db } from "../../src/platform/db/index.js";
import { VisitorSketch, visitorHash } from "../../src/modules/analytics/ingest/hll.js";
import { ALL_CHANNELS } from "../../src/modules/analytics/ingest/rollup-store.js";
import { weekOf } from "../../src/modules/analytics/ingest/sketches.js";

const DAY = 86_400_000;
const CHANNELS = [
  "direct",
  "organic_search",
  "paid_search",
  "organic_social",
  "paid_social",
  "email",
  "referral",
  "display",
  "affiliate",
  "ai_assistant",
];
const DEVICES = ["desktop", "desktop", "desktop", "mobile", "mobile", "tablet"];
const BROWSERS = ["Chrome", "Chrome", "Safari", "Mobile Safari", "Firefox", "Edge"];
const OSES = ["Windows", "Windows", "Mac OS", "iOS", "Android", "Linux"];

type Col = [name: string, type: "text" | "bigint" | "integer" | "double precision"];
const EVENT_COLS: Col[] = [
  ["id", "text"],
  ["project_id", "text"],
  ["visitor_id", "text"],
  ["type", "text"],
  ["url", "text"],
  ["data", "text"],
  ["ts", "bigint"],
  ["received_at", "bigint"],
  ["session_id", "text"],
  ["channel", "text"],
  ["is_bot", "integer"],
  ["is_server", "integer"],
];
const TOUCH_COLS: Col[] = [
  ["project_id", "text"],
  ["session_id", "text"],
  ["visitor_id", "text"],
  ["person_key", "text"],
  ["channel", "text"],
  ["ts", "bigint"],
  ["source", "text"],
  ["campaign", "text"],
  ["landing_page", "text"],
  ["referrer_domain", "text"],
  ["device", "text"],
  ["browser", "text"],
  ["os", "text"],
];
const ACTIVITY_COLS: Col[] = [
  ["project_id", "text"],
  ["day", "integer"],
  ["type", "text"],
  ["visitor_id", "text"],
];
const CONVERSION_COLS: Col[] = [
  ["event_id", "text"],
  ["project_id", "text"],
  ["visitor_id", "text"],
  ["person_key", "text"],
  ["lead_id", "text"],
  ["goal_id", "text"],
  ["type", "text"],
  ["revenue", "double precision"],
  ["counted", "integer"],
  ["channel", "text"],
  ["ts", "bigint"],
  ["credits", "text"],
];

/** Writes rows in batches: prepared inserts on SQLite, `insert … select from unnest(…)` on PostgreSQL. */
class Writer {
  private buffers = new Map<string, { cols: Col[]; rows: unknown[][] }>();
  constructor(
    private readonly db: Db,
    private readonly postgres: boolean,
    private readonly raw?: import("better-sqlite3").Database,
  ) {}

  async add(table: string, cols: Col[], row: unknown[]): Promise<void> {
    let b = this.buffers.get(table);
    if (!b) {
      b = { cols, rows: [] };
      this.buffers.set(table, b);
    }
    b.rows.push(row);
    if (b.rows.length >= 20_000) await this.flush(table);
  }

  async flush(table?: string): Promise<void> {
    for (const [name, b] of this.buffers) {
      if ((table && name !== table) || b.rows.length === 0) continue;
      const rows = b.rows;
      b.rows = [];
      const names = b.cols.map((c) => c[0]).join(", ");
      if (!this.postgres) {
        const insert = this.raw!.prepare(
          `insert into ${name} (${names}) values (${b.cols.map(() => "?").join(", ")})`,
        );
        this.raw!.transaction(() => {
          for (const r of rows) insert.run(...(r as never[]));
        })();
        continue;
      }
      const arrays = b.cols.map((_, i) => rows.map((r) => r[i]));
      await sql`insert into ${sql.raw(name)} (${sql.raw(names)}) select * from unnest(${sql.join(
        b.cols.map((c, i) => sql`${arrays[i]}::${sql.raw(c[1])}[]`),
      )})`.execute(this.db);
    }
  }
}

export async function seedExplore(
  db: Db,
  postgres: boolean,
  raw: import("better-sqlite3").Database | undefined,
  projectId: string,
  events: number,
  now: number,
) {
  const w = new Writer(db, postgres, raw);
  const visitors = Math.floor(events / 10);
  const byDay: number[][] = Array.from({ length: 120 }, () => []);
  for (let v = 0; v < visitors; v++) byDay[(v * 7919) % 120]!.push(v);
  const leadOf = (v: number) => (v % 10 < 2 ? `lead${v - (v % 10)}` : null);
  for (let v = 0; v + 1 < visitors; v += 10) {
    await w.add(
      "analytics_links",
      [
        ["project_id", "text"],
        ["visitor_id", "text"],
        ["lead_id", "text"],
      ],
      [projectId, `v${v}`, `lead${v}`],
    );
    await w.add(
      "analytics_links",
      [
        ["project_id", "text"],
        ["visitor_id", "text"],
        ["lead_id", "text"],
      ],
      [projectId, `v${v + 1}`, `lead${v}`],
    );
  }
  const daily = new Map<string, { sketch: VisitorSketch; conversions: number; revenue: number }>();
  const weekly = new Map<string, VisitorSketch>();
  const roll = (day: number, channel: string, hash: number) => {
    for (const c of [channel, ALL_CHANNELS]) {
      const dk = `${day}|${c}`;
      let d = daily.get(dk);
      if (!d) {
        d = { sketch: new VisitorSketch(), conversions: 0, revenue: 0 };
        daily.set(dk, d);
      }
      d.sketch.add(hash);
      const wk = `${weekOf(day)}|${c}`;
      let s = weekly.get(wk);
      if (!s) {
        s = new VisitorSketch();
        weekly.set(wk, s);
      }
      s.add(hash);
    }
  };
  let seq = 0;
  let received = 0;
  for (let d = 119; d >= 0; d--)
    for (const v of byDay[d]!) {
      const visitor = `v${v}`;
      const lead = leadOf(v);
      const person = lead ? `l:${lead}` : `v:${visitor}`;
      const hash = visitorHash(visitor);
      const activity = new Set<string>();
      const firstChannel = CHANNELS[(v * 31) % 10]!;
      for (let k = 0; k < 2; k++) {
        const start = now - d * DAY - (v % 3600) * 1000 - (1 - k) * 3 * 3_600_000;
        const session = `s${v}_${k}`;
        const channel = CHANNELS[(v * 31 + k) % 10]!;
        const landing = `https://shop.example.com/p/${(v * 13 + k) % 300}`;
        await w.add("analytics_touchpoints", TOUCH_COLS, [
          projectId,
          session,
          visitor,
          person,
          channel,
          start,
          `source${v % 30}`,
          `campaign-${v % 20}`,
          landing,
          `site${v % 50}.example.org`,
          DEVICES[(v + k) % 6],
          BROWSERS[(v + k) % 6],
          OSES[(v + 2 * k) % 6],
        ]);
        for (let i = 0; i < 5; i++) {
          const ts = start + i * 5 * 60_000;
          received = Math.max(received, ts);
          let type = "pageview";
          let url =
            i === 1 ? "https://shop.example.com/pricing" : `https://shop.example.com/p/${(v + i + k) % 50}`;
          if (i === 4) {
            type =
              k === 0 && v % 10 < 3 ? "signup" : k === 1 && v % 10 === 0 ? "purchase" : `action_${v % 12}`;
            url = `https://shop.example.com/${type}`;
          }
          const data =
            i === 0 && v % 4 === 0 ? '{"plan":"pro"}' : type === "purchase" ? '{"revenue":10}' : "{}";
          const n = seq++;
          const id = postgres
            ? `ev_${received.toString(36).padStart(9, "0")}${n.toString(36).padStart(7, "0")}`
            : `ev_${n.toString(36).padStart(8, "0")}`;
          await w.add("events", EVENT_COLS, [
            id,
            projectId,
            visitor,
            type,
            url,
            data,
            ts,
            received,
            session,
            channel,
            0,
            0,
          ]);
          const day = Math.floor(ts / DAY);
          activity.add(`${day}|${type}`);
          roll(day, channel, hash);
          if (type === "purchase") {
            await w.add("analytics_conversions", CONVERSION_COLS, [
              id,
              projectId,
              visitor,
              person,
              lead,
              null,
              type,
              10,
              1,
              firstChannel,
              ts,
              null,
            ]);
            const dd = daily.get(`${day}|${firstChannel}`) ?? {
              sketch: new VisitorSketch(),
              conversions: 0,
              revenue: 0,
            };
            dd.conversions++;
            dd.revenue += 10;
            daily.set(`${day}|${firstChannel}`, dd);
          }
        }
      }
      for (const a of activity) {
        const [day, type] = a.split("|");
        await w.add("analytics_activity", ACTIVITY_COLS, [projectId, Number(day), type, visitor]);
      }
    }
  for (const [k, d] of daily) {
    const [day, channel] = k.split("|");
    await w.add(
      "analytics_daily",
      [
        ["project_id", "text"],
        ["day", "integer"],
        ["channel", "text"],
        ["visitors_sketch", "text"],
        ["conversions", "integer"],
        ["revenue", "double precision"],
        ["leads", "integer"],
      ],
      [projectId, Number(day), channel, d.sketch.serialize(), d.conversions, d.revenue, 0],
    );
  }
  for (const [k, s] of weekly) {
    const [week, channel] = k.split("|");
    await w.add(
      "analytics_weekly",
      [
        ["project_id", "text"],
        ["week", "integer"],
        ["channel", "text"],
        ["visitors_sketch", "text"],
      ],
      [projectId, Number(week), channel, s.serialize()],
    );
  }
  await w.flush();
  return { visitors, sessions: visitors * 2, events: seq };
}
