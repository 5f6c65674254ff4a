import { DAY, type Dataset } from "./dataset.js";
import { Truth } from "./truth.js";

/**
 * Trends truth (docs/decisions/identity-analytics.md, "Trends"), computed from the generator's
 * facts by plain loops — never by Lift's code: every event a person sent, its bucket, and each
 * measure per bucket and over the period.
 */

export interface TrendEvent {
  type: string;
  ts: number;
  /** `l:<lead>` or `v:<visitor>`: a lead's visitors are one person */
  person: string;
  /** the session's channel; a server event's person's first touch ("(none)": they never visited) */
  channel: string;
  props: Record<string, unknown>;
}

/** Every event of the dataset but the crawlers': page views, web actions, servers' events, and `extra`. */
export function trendEvents(d: Dataset, extra: TrendEvent[] = []): TrendEvent[] {
  const truth = new Truth(d);
  const out: TrendEvent[] = [];
  for (const s of d.sessions)
    for (const p of s.pages)
      out.push({
        type: "pageview",
        ts: p.ts,
        person: truth.person(s.visitor),
        channel: s.channel,
        props: {},
      });
  for (const a of d.actions)
    out.push({
      type: a.type,
      ts: a.ts,
      person: truth.person(a.visitor),
      channel: a.session.channel,
      props: {},
    });
  for (const e of d.server) {
    const person = e.lead ? `l:${e.lead}` : truth.person(e.visitor!);
    out.push({
      type: e.type,
      ts: e.ts,
      person,
      channel: truth.firstTouch(person)?.channel ?? "(none)",
      props: e.revenue !== undefined ? { revenue: e.revenue, currency: "USD" } : {},
    });
  }
  return [...out, ...extra];
}

const PLANS = ["basic", "basic", "basic", "basic", "pro", "pro", "pro", "team", "team", "edu", "gov"];

/**
 * 60 "order" events of 13 buyers who never visited (servers' events) over the 20 days up to `now`,
 * each with a `plan` (five values, unevenly) and an `amount` — every ninth one not a number.
 */
export function orderEvents(now: number): TrendEvent[] {
  const today = Math.floor(now / DAY) * DAY;
  return Array.from({ length: 60 }, (_, i) => ({
    type: "order",
    ts: Math.min(today - (i % 20) * DAY + ((i * 7) % 12) * 3_600_000, now - 3 * 3_600_000),
    person: `v:buyer-${i % 13}`,
    channel: "(none)",
    props: { plan: PLANS[i % PLANS.length]!, amount: i % 9 === 0 ? "n/a" : 10 + ((i * 37) % 50) / 4 },
  }));
}

export type Interval = "hour" | "day" | "week" | "month";
export type Measure =
  | "total"
  | "unique_people"
  | "dau"
  | "wau"
  | "mau"
  | "sum"
  | "avg"
  | "min"
  | "max"
  | "median"
  | "p90";

/** The start of the bucket holding `ts`, cut at `from` (UTC; weeks from Monday). */
export function bucketStart(interval: Interval, ts: number, from: number): number {
  const d = new Date(ts);
  let start: number;
  if (interval === "hour")
    start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
  else if (interval === "day") start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  else if (interval === "week") {
    const sinceMonday = (d.getUTCDay() + 6) % 7;
    start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - sinceMonday);
  } else start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return Math.max(start, from);
}

/** Every bucket's start over [from, to). */
export function bucketStarts(interval: Interval, from: number, to: number): number[] {
  const out: number[] = [];
  for (let ts = from; ts < to; ts += 3_600_000) {
    const b = bucketStart(interval, ts, from);
    if (out[out.length - 1] !== b) out.push(b);
  }
  return out;
}

/** The quantile `p` with linear interpolation between the nearest ranks. */
export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function measureOf(events: TrendEvent[], measure: Measure, property?: string): number | null {
  if (measure === "total") return events.length;
  if (["unique_people", "dau", "wau", "mau"].includes(measure))
    return new Set(events.map((e) => e.person)).size;
  const values = events.map((e) => e.props[property!]).filter((v): v is number => typeof v === "number");
  if (measure === "sum") return values.reduce((s, v) => s + v, 0);
  if (values.length === 0) return null;
  if (measure === "avg") return values.reduce((s, v) => s + v, 0) / values.length;
  if (measure === "min") return Math.min(...values);
  if (measure === "max") return Math.max(...values);
  return quantile(values, measure === "median" ? 0.5 : 0.9);
}

const ACTIVE: Partial<Record<Measure, number>> = { dau: 1, wau: 7, mau: 30 };

/**
 * A series' truth over [from, to): per bucket (ISO start) and over the whole range. dau / wau / mau
 * (daily buckets): the people with an event in the 1 / 7 / 30 days ending with each day.
 */
export function trendTruth(
  events: TrendEvent[],
  o: { interval: Interval; measure: Measure; property?: string; from: number; to: number },
): { data: { bucket: string; value: number | null }[]; total: number | null } {
  const days = ACTIVE[o.measure];
  const data = bucketStarts(o.interval, o.from, o.to).map((b, i, all) => {
    const end = all[i + 1] ?? o.to;
    const start = days ? end - days * DAY : b;
    const inside = events.filter((e) => e.ts >= start && e.ts < end);
    return { bucket: new Date(b).toISOString(), value: measureOf(inside, o.measure, o.property) };
  });
  const total = measureOf(
    events.filter((e) => e.ts >= o.from && e.ts < o.to),
    o.measure,
    o.property,
  );
  return { data, total };
}
