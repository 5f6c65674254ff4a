import { expect } from "vitest";
import { mulberry32 } from "../../src/platform/stats/stats.js";
import { call } from "../hardening/lift-process.js";
import { type Proc, problems } from "./two-processes.harness.js";

/**
 * two-processes.test.ts: the deterministic script of visitors, events, conversions and stitches it
 * sends, and how it reads back what the processes made of them.
 */
const MIN = 60_000;
const SESSION_GAP_MS = 30 * MIN;
const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

export interface Db {
  url: string;
  apiKey: string;
  publicKey: string;
  projectId: string;
}

/** Where a visit comes from: URL query and referrer (channels: direct, search, email, social …). */
const ACQUISITIONS: { query: string; referrer?: string }[] = [
  { query: "" },
  { query: "", referrer: "https://www.google.com/" },
  { query: "?utm_source=google&utm_medium=cpc&utm_campaign=spring", referrer: "https://www.google.com/" },
  { query: "?utm_source=newsletter&utm_medium=email&utm_campaign=may" },
  { query: "", referrer: "https://www.facebook.com/" },
  { query: "?utm_source=facebook&utm_medium=paid&utm_campaign=retarget" },
  { query: "", referrer: "https://news.ycombinator.com/item?id=1" },
  // a tab left open past the gap: a self-referral continues the visit's source
  { query: "", referrer: "https://shop.example.com/pricing" },
  { query: "?gclid=abc123" },
  { query: "", referrer: "https://chat.openai.com/" },
];
const PAGES = ["/", "/pricing", "/blog/launch", "/docs/start", "/checkout", "/features"];
/** Gaps between a visitor's events: some within a session (≤ 29 min), some past it (≥ 31 min). */
const GAPS = [1, 4, 12, 20, 29, 31, 45, 120, 420].map((m) => m * MIN);

export interface EventBody {
  type: string;
  visitorId: string;
  url: string;
  referrer?: string;
  timestamp: string;
  data?: Record<string, unknown>;
}
type Step =
  | { kind: "event"; event: EventBody }
  /** two events of one visitor sent at once, one to each process (same page, a minute apart) */
  | { kind: "burst"; events: [EventBody, EventBody] }
  | { kind: "stitch"; email: string };

export interface Visitor {
  id: string;
  steps: Step[];
  /** timestamps of the visitor's events in order */
  times: number[];
}

export function script(now: number, count: number): Visitor[] {
  const rnd = mulberry32(18);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const visitors: Visitor[] = [];
  for (let i = 0; i < count; i++) {
    const id = `v${String(i).padStart(3, "0")}-${Math.floor(rnd() * 1e9).toString(36)}`;
    const n = 4 + Math.floor(rnd() * 7);
    const steps: Step[] = [];
    const times: number[] = [];
    let t = now - 4 * 86_400_000 + Math.floor(rnd() * 86_400_000);
    for (let j = 0; j < n; j++) {
      if (j > 0) t += pick(GAPS);
      const acq = pick(ACQUISITIONS);
      const url = `https://shop.example.com${pick(PAGES)}${acq.query}`;
      const r = rnd();
      const type =
        j === 0
          ? "pageview"
          : r < 0.55
            ? "pageview"
            : r < 0.7
              ? "click"
              : r < 0.8
                ? "signup"
                : r < 0.92
                  ? "purchase"
                  : "video_play";
      const event: EventBody = {
        type,
        visitorId: id,
        url,
        ...(acq.referrer ? { referrer: acq.referrer } : {}),
        timestamp: new Date(t).toISOString(),
        ...(type === "purchase" ? { data: { revenue: 10 + Math.floor(rnd() * 190) + 0.5 } } : {}),
      };
      times.push(t);
      // A burst: the same page clicked a minute later, both in flight at once (one on A, one on B),
      // not across midnight (a session's day is its first event's).
      const second = new Date(t + MIN);
      if (type === "pageview" && rnd() < 0.3 && second.getUTCDate() === new Date(t).getUTCDate()) {
        t += MIN;
        times.push(t);
        steps.push({
          kind: "burst",
          events: [event, { ...event, type: "click", timestamp: second.toISOString() }],
        });
      } else steps.push({ kind: "event", event });
      if (i % 2 === 0 && j === Math.floor(n / 2)) steps.push({ kind: "stitch", email: `${id}@example.com` });
    }
    visitors.push({ id, steps, times });
  }
  return visitors;
}

/** Sessions of a visitor by the rule itself: a new one after more than 30 minutes without events. */
export const expectedSessions = (v: Visitor) =>
  1 + v.times.slice(1).filter((t, k) => t - v.times[k]! > SESSION_GAP_MS).length;

export async function send(p: Proc, db: Db, event: EventBody): Promise<void> {
  const res = await call(p.base, "POST", "/api/events", {
    body: { ...event, projectKey: db.publicKey },
    headers: { "user-agent": BROWSER_UA },
  });
  expect(res.status, `${p.name}: ${JSON.stringify(res.body)}\n${problems(p)}`).toBe(200);
}

/**
 * Every visitor at once; each visitor's steps in order (a burst's two events together), the steps
 * going to `procs` in turn (A, B, A, B … or R, R, R …).
 */
export async function ingest(visitors: Visitor[], procs: Proc[], db: Db): Promise<void> {
  await Promise.all(
    visitors.map(async (v, i) => {
      let k = i;
      const next = () => procs[k++ % procs.length]!;
      for (const step of v.steps) {
        if (step.kind === "event") await send(next(), db, step.event);
        else if (step.kind === "burst") await Promise.all(step.events.map((e) => send(next(), db, e)));
        else {
          const p = next();
          const res = await call(p.base, "POST", "/api/identity/stitch", {
            body: { projectKey: db.publicKey, visitorId: v.id, email: step.email },
          });
          expect(res.status, `${p.name}: ${JSON.stringify(res.body)}\n${problems(p)}`).toBe(200);
        }
      }
    }),
  );
}

// ---- reading the results ------------------------------------------------------------------------

interface Exported {
  visitorId: string;
  sessionId: string;
  type: string;
  url: string;
  timestamp: string;
  channel: string;
  source: string | null;
  origin: string;
}

export async function get(p: Proc, key: string, url: string): Promise<any> {
  const res = await call(p.base, "GET", url, { key });
  expect(res.status, `${p.name} GET ${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/**
 * Each visitor's sessions as structure (session ids are random): per session, its first event's
 * time, its events (time and type) in order, its channel and source.
 */
export async function sessionsOf(p: Proc, key: string): Promise<Map<string, unknown[]>> {
  const res = await fetch(`${p.base}/api/export/events?format=ndjson`, { headers: { "x-api-key": key } });
  expect(res.status).toBe(200);
  const rows = (await res.text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Exported);
  const byVisitor = new Map<string, Map<string, Exported[]>>();
  for (const e of rows) {
    let sessions = byVisitor.get(e.visitorId);
    if (!sessions) {
      sessions = new Map();
      byVisitor.set(e.visitorId, sessions);
    }
    const list = sessions.get(e.sessionId);
    if (list) list.push(e);
    else sessions.set(e.sessionId, [e]);
  }
  const out = new Map<string, unknown[]>();
  for (const [visitorId, sessions] of byVisitor) {
    const shaped = [...sessions.values()].map((events) => {
      events.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.type.localeCompare(b.type));
      return {
        start: events[0]!.timestamp,
        events: events.map((e) => `${e.timestamp} ${e.type}`),
        channels: [...new Set(events.map((e) => `${e.channel}/${e.source}`))],
      };
    });
    shaped.sort((a, b) => a.start.localeCompare(b.start));
    out.set(visitorId, shaped);
  }
  return out;
}

/** Numbers rounded (credits are fractions summed in storage order, which differs between databases). */
export function rounded(v: unknown): unknown {
  if (typeof v === "number") return Math.round(v * 1e6) / 1e6;
  if (Array.isArray(v)) return v.map(rounded);
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rounded(x)]));
  return v;
}

export const REPORTS = [
  "/api/analytics/summary",
  "/api/analytics/timeseries?period=7d",
  "/api/analytics/breakdown?by=channel&limit=100",
  "/api/analytics/breakdown?by=source&limit=100",
  "/api/analytics/breakdown?by=landing_page&limit=100",
  "/api/analytics/breakdown?by=event_type&limit=100",
  "/api/attribution/summary",
  "/api/attribution/summary?model=first_touch",
  "/api/attribution/summary?model=last_touch",
  "/api/attribution/summary?model=linear",
];

const filter = (f: unknown) => encodeURIComponent(JSON.stringify(f));

/** Questions over raw events (the analytics engine, a copy per process): [method, url, body]. */
export const ENGINE_REPORTS: [string, string, unknown?][] = [
  ["GET", `/api/analytics/summary?filter=${filter([{ key: "page", op: "contains", value: "/pricing" }])}`],
  [
    "GET",
    `/api/analytics/breakdown?by=channel&filter=${filter([{ key: "event", op: "is", value: "purchase" }])}`,
  ],
  ["GET", "/api/analytics/retention?period=7d&interval=day"],
  [
    "POST",
    "/api/analytics/funnel",
    { steps: [{ eventType: "pageview" }, { eventType: "signup" }, { eventType: "purchase" }], period: "7d" },
  ],
  ["POST", "/api/analytics/paths", { start: { event: "pageview", page: "*/" }, steps: 3, period: "7d" }],
  [
    "POST",
    "/api/cohorts/preview",
    { definition: { conditions: [{ type: "event", event: "signup", withinDays: 7 }] } },
  ],
];

export async function leadsOf(p: Proc, key: string) {
  const list = await get(p, key, "/api/leads?limit=200");
  expect(list.nextCursor).toBeNull();
  return (
    list.items as {
      email: string;
      firstTouch: unknown;
      visitorIds: string[];
      conversions: number;
      revenue: number;
    }[]
  )
    .map((l) => ({
      email: l.email,
      firstTouch: l.firstTouch,
      visitorIds: [...l.visitorIds].sort(),
      conversions: l.conversions,
      revenue: rounded(l.revenue),
    }))
    .sort((a, b) => a.email.localeCompare(b.email));
}

// ---- the tests ----------------------------------------------------------------------------------
