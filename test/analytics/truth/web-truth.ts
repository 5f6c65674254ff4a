import {
  type Channel,
  DAY,
  DEVICES,
  DEVICE_TYPE,
  type Dataset,
  SITE,
  type Session,
  entryOf,
} from "./dataset.js";
import type { Period } from "./truth.js";

/**
 * The web view's truth (docs/decisions/identity-analytics.md, "Web view"), from the generator's
 * facts by plain loops — never by Lift's code: each visit is a generated session (its pages, and
 * the web actions the generator put in it), counted in the period its first page falls in.
 */

/** Where Lift's channel rules say each generated channel comes from (the referrer's known name, or its host). */
const SOURCE: Record<Channel, string | null> = {
  direct: null,
  organic_search: "google",
  paid_search: "google",
  organic_social: "facebook",
  paid_social: "facebook",
  email: "newsletter",
  referral: "blog.partner.org",
};

export interface Visit {
  session: Session;
  visitor: string;
  pageviews: number;
  /** ms from the first event to the last */
  dur: number;
  /** page URLs (no query) viewed, in order */
  pages: string[];
  /** URLs of every web event (page views as sent, actions) */
  urls: string[];
  values: Record<string, string>;
  /** signups in the visit */
  signups: number;
}

const NONE = "(none)";

export function visitsOf(d: Dataset): Visit[] {
  const country = new Map(d.visitors.map((v) => [v.id, v.country]));
  const actions = new Map<Session, Dataset["actions"]>();
  for (const a of d.actions) actions.set(a.session, [...(actions.get(a.session) ?? []), a]);
  return d.sessions.map((s) => {
    const own = actions.get(s) ?? [];
    const times = [...s.pages.map((p) => p.ts), ...own.map((a) => a.ts)];
    const landing = new URL(entryOf(s.channel, s.pages[0]!.path).url);
    const param = (k: string) => landing.searchParams.get(k) ?? NONE;
    const pages = s.pages.map((p) => `${SITE}${p.path}`);
    return {
      session: s,
      visitor: s.visitor,
      pageviews: s.pages.length,
      dur: Math.max(...times) - Math.min(...times),
      pages,
      urls: [
        entryOf(s.channel, s.pages[0]!.path).url,
        ...pages.slice(1),
        ...own.map((a) => `${SITE}${a.path}`),
      ],
      values: {
        channel: s.channel,
        source: SOURCE[s.channel] ?? NONE,
        utm_source: param("utm_source"),
        utm_medium: param("utm_medium"),
        utm_campaign: param("utm_campaign"),
        utm_term: param("utm_term"),
        utm_content: param("utm_content"),
        entry_page: pages[0]!,
        exit_page: pages[pages.length - 1]!,
        country: country.get(s.visitor) ?? NONE,
        device: DEVICE_TYPE[s.device],
        browser: DEVICES[s.device].browser,
        os: DEVICES[s.device].os,
      },
      signups: own.filter((a) => a.type === "signup").length,
    };
  });
}

export const inPeriod = (visits: Visit[], p: Period) =>
  visits.filter((v) => v.session.start >= p.from && v.session.start < p.to);

export interface Headline {
  visitors: number;
  visits: number;
  pageviews: number;
  viewsPerVisit: number;
  bounceRate: number;
  visitDuration: number;
  conversions: number;
  conversionRate: number;
}

export function headlineOf(visits: Visit[]): Headline {
  const n = visits.length;
  const pageviews = visits.reduce((a, v) => a + v.pageviews, 0);
  return {
    visitors: new Set(visits.map((v) => v.visitor)).size,
    visits: n,
    pageviews,
    viewsPerVisit: n ? pageviews / n : 0,
    bounceRate: n ? visits.filter((v) => v.pageviews === 1).length / n : 0,
    visitDuration: n ? visits.reduce((a, v) => a + v.dur, 0) / n / 1000 : 0,
    conversions: visits.reduce((a, v) => a + v.signups, 0),
    conversionRate: n ? visits.filter((v) => v.signups > 0).length / n : 0,
  };
}

export interface Row {
  visitors: number;
  visits: number;
  pageviews: number;
}

/** Visits by a value: visitors, visits, page views. */
export function listOf(visits: Visit[], key: string): Map<string, Row> {
  const out = new Map<string, { visitors: Set<string>; visits: number; pageviews: number }>();
  for (const v of visits) {
    const k = v.values[key]!;
    const r = out.get(k) ?? { visitors: new Set<string>(), visits: 0, pageviews: 0 };
    r.visitors.add(v.visitor);
    r.visits += 1;
    r.pageviews += v.pageviews;
    out.set(k, r);
  }
  return new Map(
    [...out].map(([k, r]) => [k, { visitors: r.visitors.size, visits: r.visits, pageviews: r.pageviews }]),
  );
}

/** Top pages: each page's views, and the visits and visitors that viewed it. */
export function pagesOf(visits: Visit[]): Map<string, Row> {
  const out = new Map<string, { visitors: Set<string>; visits: Set<Session>; pageviews: number }>();
  for (const v of visits)
    for (const page of v.pages) {
      const r = out.get(page) ?? { visitors: new Set<string>(), visits: new Set<Session>(), pageviews: 0 };
      r.visitors.add(v.visitor);
      r.visits.add(v.session);
      r.pageviews += 1;
      out.set(page, r);
    }
  return new Map(
    [...out].map(([k, r]) => [
      k,
      { visitors: r.visitors.size, visits: r.visits.size, pageviews: r.pageviews },
    ]),
  );
}

/** Visitors, visits and page views per UTC day of the visits' starts. */
export function dailyOf(visits: Visit[], p: Period): Row[] {
  const out: Row[] = [];
  for (let day = p.from; day < p.to; day += DAY) {
    const of = visits.filter((v) => v.session.start >= day && v.session.start < day + DAY);
    const h = headlineOf(of);
    out.push({ visitors: h.visitors, visits: h.visits, pageviews: h.pageviews });
  }
  return out;
}
