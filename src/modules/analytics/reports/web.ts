import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { validation } from "../../../platform/errors.js";
import { EngineQuery } from "../engine/sql.js";
import {
  type WebRange,
  breakdownSql,
  chartSql,
  headlineSql,
  pagesSql,
  partsSql,
  visitListsSql,
  visitsCte,
} from "../engine/web-sql.js";
import { type Condition, parseFilter } from "../filters/filter.js";
import { DAY_MS } from "../ingest/rollup-store.js";
import { resolveGoal } from "./conversion-model.js";
import { type Period, resolvePeriod } from "./period.js";
import { MAX_BUCKETS, bucketsOf } from "./trends.js";
import type { TrendInterval } from "./trends-schema.js";
import {
  WEB_LISTS,
  type WebBodyT,
  type WebBreakdownKey,
  type WebList,
  type WebRowT,
  type WebT,
} from "./web-schema.js";

/**
 * The web view (docs/decisions/identity-analytics.md, "Web view"), as Plausible's: headline
 * numbers with the previous period's, a chart, lists and a two-level breakdown, all of the visits
 * the filter selects: on the analytics engine (engine/web-sql.ts), in a read task — one query for
 * the headline of both periods, and one for the chart, every list of the visits' values, the pages
 * and the breakdown of the period.
 */

export interface WebRequest {
  period: Period;
  interval: TrendInterval;
  conds: Condition[];
  goal?: string;
  limit: number;
  lists: WebList[];
  breakdown: WebBreakdownKey[] | null;
}

/** The list each key of a visit fills (pages are read from the page views themselves). */
const LIST_KEY: Record<Exclude<WebList, "pages">, WebBreakdownKey> = {
  entry_pages: "entry_page",
  exit_pages: "exit_page",
  sources: "source",
  channels: "channel",
  utm_source: "utm_source",
  utm_medium: "utm_medium",
  utm_campaign: "utm_campaign",
  utm_term: "utm_term",
  utm_content: "utm_content",
  countries: "country",
  devices: "device",
  browsers: "browser",
  os: "os",
};

const rangeOf = (p: Period): WebRange => ({ from: p.fromDay * DAY_MS, to: (p.toDay + 1) * DAY_MS });
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;
const ratio = (a: number, b: number) => (b > 0 ? round6(a / b) : 0);

/** The body checked beyond its schema: every 400 before anything is read. */
export function planWeb(b: WebBodyT, now = Date.now()): WebRequest {
  const period = resolvePeriod({ period: b.period, from: b.from, to: b.to }, now, "body");
  const interval = b.interval ?? "day";
  const { from, to } = rangeOf(period);
  if (bucketsOf(interval, from, to).length > MAX_BUCKETS)
    throw validation(
      `body.interval: ${interval} gives more than ${MAX_BUCKETS} buckets over this period (hour: at most 31 days); choose a longer interval or a shorter period`,
    );
  if (b.breakdown?.length === 2 && b.breakdown[0] === b.breakdown[1])
    throw validation("body.breakdown: two different keys (or one)");
  return {
    period,
    interval,
    conds: parseFilter(b.filter, "body.filter"),
    ...(b.goal !== undefined ? { goal: b.goal } : {}),
    limit: b.limit ?? 10,
    lists: b.lists ?? [...WEB_LISTS],
    breakdown: b.breakdown ?? null,
  };
}

type Counts = { visitors: number; visits: number; pageviews: number; conversions?: number };

const rowOf = (r: Counts & { value: string }, withConversions: boolean): WebRowT => ({
  value: String(r.value),
  visitors: Number(r.visitors),
  visits: Number(r.visits),
  pageviews: Number(r.pageviews ?? 0),
  ...(withConversions ? { conversions: round6(Number(r.conversions ?? 0)) } : {}),
});

export async function analyticsWeb(deps: ReadDeps, project: ProjectRef, r: WebRequest): Promise<WebT> {
  const goal = await resolveGoal(deps.db, project, r.goal, "body.goal");
  const range = rangeOf(r.period);
  const days = r.period.toDay - r.period.fromDay + 1;
  const prevFrom = r.period.fromDay - days;
  const run = async <T>(within: WebRange, build: (q: EngineQuery, withs: string) => string): Promise<T[]> => {
    const q = new EngineQuery();
    const withs = await visitsCte(q, deps, project, r.conds, within, range.from, goal);
    return deps.engine.query<T>(...q.bound(build(q, withs)));
  };

  // The headline (both periods in one query: `cur` tells them apart), and the chart, the lists,
  // the pages and the breakdown in one query over the same visits made once; both at once, on
  // the engine's threads.
  type Head = Counts & { cur: boolean; bounces: number; dur: number | null; converted: number };
  const headsRun = run<Head>({ from: prevFrom * DAY_MS, to: range.to }, (_q, w) => headlineSql(w));
  const byVisit = r.lists.filter((l): l is Exclude<WebList, "pages"> => l !== "pages");
  const at = { lists: -1, pages: -1, breakdown: -1 };
  const partedRun = run<{ part: number; r: string }>(range, (q, w) => {
    const parts = [chartSql(q, "", r.interval, range.from)];
    if (byVisit.length > 0)
      at.lists =
        parts.push(
          visitListsSql(
            q,
            "",
            byVisit.map((l) => LIST_KEY[l]),
            r.limit,
          ),
        ) - 1;
    if (r.lists.includes("pages")) at.pages = parts.push(pagesSql(q, "", r.limit)) - 1;
    if (r.breakdown) at.breakdown = parts.push(breakdownSql(q, "", r.breakdown, r.limit)) - 1;
    return partsSql(w, parts);
  });
  const [heads, parted] = await Promise.all([headsRun, partedRun]);
  const of = (cur: boolean) => {
    const h = heads.find((x) => Boolean(x.cur) === cur);
    const visits = Number(h?.visits ?? 0);
    const pageviews = Number(h?.pageviews ?? 0);
    return {
      visitors: Number(h?.visitors ?? 0),
      visits,
      pageviews,
      viewsPerVisit: ratio(pageviews, visits),
      bounceRate: ratio(Number(h?.bounces ?? 0), visits),
      visitDuration: h?.dur == null ? 0 : round6(Number(h.dur) / 1000),
      conversions: round6(Number(h?.conversions ?? 0)),
      conversionRate: ratio(Number(h?.converted ?? 0), visits),
    };
  };
  const now = of(true);
  const before = of(false);
  const headline = Object.fromEntries(
    (Object.keys(now) as (keyof typeof now)[]).map((k) => [k, { value: now[k], previous: before[k] }]),
  ) as WebT["headline"];

  /** A part's rows, in their order (`n`) when they have one. */
  const part = <T>(i: number) =>
    parted
      .filter((x) => Number(x.part) === i)
      .map((x) => JSON.parse(String(x.r)) as T & { n?: number })
      .sort((a, b) => Number(a.n ?? 0) - Number(b.n ?? 0));

  const points = part<{ b: number } & Counts>(0);
  const byBucket = new Map(points.map((p) => [Number(p.b), p]));
  const chart = bucketsOf(r.interval, range.from, range.to).map((b) => {
    const p = byBucket.get(b);
    return {
      bucket: new Date(b).toISOString(),
      visitors: Number(p?.visitors ?? 0),
      visits: Number(p?.visits ?? 0),
      pageviews: Number(p?.pageviews ?? 0),
    };
  });

  const lists: WebT["lists"] = {};
  const fill = (name: WebList, rows: (Counts & { value: string })[]) => {
    lists[name] = {
      rows: rows.slice(0, r.limit).map((row) => rowOf(row, name !== "pages")),
      more: rows.length > r.limit,
    };
  };
  if (at.lists >= 0) {
    const sorted = part<Counts & { g: number; value: string }>(at.lists);
    for (const [i, name] of byVisit.entries())
      fill(
        name,
        sorted.filter((row) => Number(row.g) === i),
      );
  }
  if (at.pages >= 0) fill("pages", part<Counts & { value: string }>(at.pages));
  // The answer lists them in the order asked.
  const ordered: WebT["lists"] = {};
  for (const name of r.lists) ordered[name] = lists[name];

  let breakdown: WebT["breakdown"];
  if (r.breakdown) {
    const keys = r.breakdown;
    type B = Counts & { bounces: number; dur: number | null } & Record<`k${number}`, string>;
    const rows = part<B>(at.breakdown);
    breakdown = {
      keys,
      rows: rows.slice(0, r.limit).map((row) => ({
        values: keys.map((_, i) => String(row[`k${i}`])),
        visitors: Number(row.visitors),
        visits: Number(row.visits),
        pageviews: Number(row.pageviews ?? 0),
        bounceRate: ratio(Number(row.bounces), Number(row.visits)),
        visitDuration: row.dur == null ? 0 : round6(Number(row.dur) / 1000),
      })),
      more: rows.length > r.limit,
    };
  }

  return {
    period: { from: r.period.from, to: r.period.to },
    compare: { from: isoDay(prevFrom), to: isoDay(r.period.fromDay - 1) },
    interval: r.interval,
    goal,
    headline,
    chart,
    lists: ordered,
    ...(breakdown ? { breakdown } : {}),
  };
}
