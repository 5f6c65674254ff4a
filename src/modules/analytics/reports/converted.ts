import type { DbOrTrx } from "../../../platform/db/index.js";
import { VisitorSketch } from "../ingest/hll.js";
import { ALL_CHANNELS } from "../ingest/rollup-store.js";
import "../tables.js";

/**
 * Per-person figures beside the rollups' per-event counters: how many people
 * converted, and which currencies the revenue came in. They read `analytics_conversions`: one row
 * per conversion event, far fewer than events, so an unfiltered report stays off the events table.
 */

export interface Range {
  /** epoch ms, inclusive */
  from: number;
  /** epoch ms, exclusive */
  to: number;
}

/**
 * The period's distinct visitors from its sketch rows (`sketchesFor`): the all-channel rows, or
 * with a channel filter the union of those channels' rows. The summary's tile and the time
 * series' total both come from here, so they are one number.
 */
export function periodVisitors(
  rows: { channel: string; visitors_sketch: string }[],
  only?: Set<string>,
): VisitorSketch {
  const all = VisitorSketch.union();
  for (const r of rows)
    if (only ? r.channel !== ALL_CHANNELS && only.has(r.channel) : r.channel === ALL_CHANNELS)
      all.mergeText(r.visitors_sketch);
  return all;
}

/** Anonymous server events (no visitor, no lead) have the person key `v:`: nobody to count. */
const ANONYMOUS = "v:";

/** What the period's conversions say beyond the rollups' counters. */
export interface ConversionPeople extends RevenueCurrency {
  /** people with a counted conversion */
  total: number;
  /** the same per rollup channel (the person's first-touch channel when it was recorded) */
  byChannel: Map<string, number>;
}

/**
 * People (a lead's visitors together: `person_key`) with a counted conversion in the range, in
 * total and per rollup channel (as the conversion counters use), and the currencies named. Refunds
 * are not conversions; anonymous server conversions are nobody's. One index-only read of the
 * range (migration 0398's covering index; `count(distinct)` in SQL made SQLite walk the project's
 * person index instead), counted here.
 */
export async function convertedPeople(
  db: DbOrTrx,
  projectId: string,
  range: Range,
  only?: Set<string>,
): Promise<ConversionPeople> {
  const rows = await db
    .selectFrom("analytics_conversions")
    .select(["person_key", "channel", "counted", "currency"])
    .where("project_id", "=", projectId)
    .where("ts", ">=", range.from)
    .where("ts", "<", range.to)
    .$if(only !== undefined, (q) => q.where("channel", "in", [...only!]))
    .execute();
  const all = new Set<string>();
  const channels = new Map<string, Set<string>>();
  const codes = new Set<string>();
  for (const r of rows) {
    if (r.currency) codes.add(r.currency);
    if (Number(r.counted) !== 1 || r.person_key === ANONYMOUS) continue;
    all.add(r.person_key);
    let set = channels.get(r.channel);
    if (!set) {
      set = new Set();
      channels.set(r.channel, set);
    }
    set.add(r.person_key);
  }
  return {
    total: all.size,
    byChannel: new Map([...channels].map(([c, set]) => [c, set.size])),
    ...currencyOf(codes),
  };
}

/** People among conversions as the filtered reports hold them (the same rule as `convertedPeople`). */
export function countConverted(list: { personKey: string; counted: number }[]): number {
  const people = new Set<string>();
  for (const c of list) if (c.counted > 0 && c.personKey !== ANONYMOUS) people.add(c.personKey);
  return people.size;
}

/**
 * The revenue's currency: the one code when every conversion that named one named the same
 * (refunds included; a conversion without revenue that names one names the shop's currency too).
 */
export interface RevenueCurrency {
  revenueCurrency: string | null;
  revenueCurrencies: string[];
}

export function currencyOf(codes: Iterable<string | null>): RevenueCurrency {
  const set = new Set<string>();
  for (const c of codes) if (c) set.add(c);
  const list = [...set].sort();
  return { revenueCurrency: list.length === 1 ? list[0]! : null, revenueCurrencies: list };
}

/** Per-person and per-event rates over `visitors`; the per-person one cannot pass 1. */
export function rates(visitors: number, converted: number, conversions: number) {
  return {
    conversionRate: visitors > 0 ? round6(Math.min(1, converted / visitors)) : 0,
    conversionsPerVisitor: visitors > 0 ? round6(conversions / visitors) : 0,
  };
}

/** Rates and amounts go out with six decimals, as everywhere in the analytics answers. */
const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;
