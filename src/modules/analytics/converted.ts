import { sql } from "kysely";
import type { DbOrTrx } from "../../platform/db/index.js";
import { VisitorSketch } from "./hll.js";
import { ALL_CHANNELS } from "./rollup-store.js";
import "./tables.js";

/**
 * Per-person figures beside the rollups' per-event counters (issue 34): how many people
 * converted, and which currencies the revenue came in. Both read `analytics_conversions` through
 * its (project_id, ts) index: one row per conversion event, far fewer than events, so an
 * unfiltered report stays off the events table.
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
  const all = new VisitorSketch();
  for (const r of rows)
    if (only ? r.channel !== ALL_CHANNELS && only.has(r.channel) : r.channel === ALL_CHANNELS)
      all.mergeText(r.visitors_sketch);
  return all;
}

/** Anonymous server events (no visitor, no lead) have the person key `v:`: nobody to count. */
const ANONYMOUS = "v:";

/**
 * People (a lead's visitors together: `person_key`) with a counted conversion in the range, in
 * total and per rollup channel (the person's first-touch channel when the conversion was
 * recorded, as the conversion counters use). Refunds are not conversions; anonymous server
 * conversions are nobody's.
 */
export async function convertedPeople(
  db: DbOrTrx,
  projectId: string,
  range: Range,
  only?: Set<string>,
): Promise<{ total: number; byChannel: Map<string, number> }> {
  const base = db
    .selectFrom("analytics_conversions")
    .where("project_id", "=", projectId)
    .where("ts", ">=", range.from)
    .where("ts", "<", range.to)
    .where("counted", "=", 1)
    .where("person_key", "!=", ANONYMOUS)
    .$if(only !== undefined, (q) => q.where("channel", "in", [...only!]));
  const [total, rows] = await Promise.all([
    base.select(sql<number>`count(distinct person_key)`.as("n")).executeTakeFirst(),
    base
      .select(["channel", sql<number>`count(distinct person_key)`.as("n")])
      .groupBy("channel")
      .execute(),
  ]);
  return {
    total: Number(total?.n ?? 0),
    byChannel: new Map(rows.map((r) => [r.channel, Number(r.n)])),
  };
}

/** People among conversions as the filtered reports hold them (the same rule as `convertedPeople`). */
export function countConverted(list: { personKey: string; counted: number }[]): number {
  const people = new Set<string>();
  for (const c of list) if (c.counted > 0 && c.personKey !== ANONYMOUS) people.add(c.personKey);
  return people.size;
}

/** The revenue's currency: the one code when every event that named one named the same. */
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

/** The currencies of the range's conversions that carry revenue (refunds included). */
export async function revenueCurrencies(
  db: DbOrTrx,
  projectId: string,
  range: Range,
  only?: Set<string>,
): Promise<RevenueCurrency> {
  const rows = await db
    .selectFrom("analytics_conversions")
    .select("currency")
    .distinct()
    .where("project_id", "=", projectId)
    .where("ts", ">=", range.from)
    .where("ts", "<", range.to)
    .where("revenue", "!=", 0)
    .where("currency", "is not", null)
    .$if(only !== undefined, (q) => q.where("channel", "in", [...only!]))
    .execute();
  return currencyOf(rows.map((r) => r.currency));
}

/** Per-person and per-event rates over `visitors`; the per-person one cannot pass 1. */
export function rates(visitors: number, converted: number, conversions: number) {
  return {
    conversionRate: visitors > 0 ? Math.min(1, converted / visitors) : 0,
    conversionsPerVisitor: visitors > 0 ? conversions / visitors : 0,
  };
}
