import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { Trx } from "../../../platform/db/index.js";
import type { BreakdownDeltas } from "./breakdown-store.js";
import { NONE_KEY, SESSION_DIMENSIONS, type SessionDimensions } from "./dimensions.js";
import { type SessionTouch, leadsOfVisitors, personKey, sessionsOf, visitorsOfPeople } from "../people.js";
import type { RollupDeltas } from "./rollup-store.js";
import type { ConversionTable } from "../tables.js";
import "../tables.js";

/**
 * A conversion's row and its counters, the same whether the pipeline records it as its event
 * commits (processor.ts) or a recount finds it among stored events (goal-recompute.ts).
 */

/** What a conversion row is made of: a committed event, or a stored one. */
export interface ConvertingEvent {
  id: string;
  visitorId: string;
  type: string;
  data: Record<string, unknown>;
  channel: string;
  timestamp: number;
}

export interface FoundConversion {
  e: ConvertingEvent;
  /** the first goal it matched (null: a `$revenue` event no goal matched) */
  goalId: string | null;
  isRevenue: boolean;
}

export const NO_DIMENSIONS: SessionDimensions = Object.freeze(
  Object.fromEntries(SESSION_DIMENSIONS.map((d) => [d, null])) as SessionDimensions,
);

function revenueOf(e: ConvertingEvent): number {
  const v = e.data?.revenue;
  const n = typeof v === "string" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : 0;
}

const CURRENCY = /^[A-Za-z]{3}$/;
/** The ISO 4217 code the event's revenue is in (`data.currency`), upper-cased; null when it names none. */
function currencyOf(e: ConvertingEvent): string | null {
  const c = e.data?.currency;
  return typeof c === "string" && CURRENCY.test(c) ? c.toUpperCase() : null;
}

export interface ConversionRows {
  rows: ConversionTable[];
  /** each row's first-touch session values (breakdowns count it there) */
  firstDims: Map<ConversionTable, SessionDimensions>;
  /** every session of each row's person: the attribution credits' touchpoints */
  touches: Map<string, SessionTouch[]>;
}

/**
 * The rows of the found conversions, each keyed by its person (a lead's visitors together) and
 * rolled up under the person's first-touch channel, so a late conversion of a lead that first came
 * from search is not credited to direct.
 */
export async function conversionRows(
  trx: Trx,
  project: ProjectRef,
  found: FoundConversion[],
): Promise<ConversionRows> {
  const links = await leadsOfVisitors(trx, project.id, [...new Set(found.map((f) => f.e.visitorId))]);
  const rows: ConversionTable[] = found.map(({ e, goalId, isRevenue }) => {
    const revenue = revenueOf(e);
    return {
      event_id: e.id,
      project_id: project.id,
      visitor_id: e.visitorId,
      person_key: personKey(e.visitorId, links.get(e.visitorId)),
      lead_id: links.get(e.visitorId) ?? null,
      goal_id: goalId,
      type: e.type,
      revenue,
      counted: isRevenue && revenue < 0 ? 0 : 1,
      channel: e.channel,
      ts: e.timestamp,
      credits: null,
      currency: currencyOf(e),
    };
  });
  const touches = await touchesOfPeople(trx, project.id, [...new Set(rows.map((r) => r.person_key))]);
  const firstDims = new Map<ConversionTable, SessionDimensions>();
  for (const r of rows) {
    let first: SessionTouch | undefined;
    for (const t of touches.get(r.person_key) ?? []) if (!first || t.ts < first.ts) first = t;
    if (first) r.channel = first.channel;
    firstDims.set(r, first?.dims ?? NO_DIMENSIONS);
  }
  return { rows, firstDims, touches };
}

/**
 * Adds the rows to the daily rollup (their channel) and the breakdowns (the first-touch session's
 * values, and their event type).
 */
export function countConversions(
  projectId: string,
  rows: ConversionTable[],
  firstDims: Map<ConversionTable, SessionDimensions>,
  deltas: RollupDeltas,
  breakdowns: BreakdownDeltas,
): void {
  for (const r of rows) {
    const d = deltas.get(projectId, r.ts, r.channel);
    d.conversions += r.counted;
    d.revenue += r.revenue;
    const dims = firstDims.get(r) ?? NO_DIMENSIONS;
    for (const dim of SESSION_DIMENSIONS) {
      const b = breakdowns.get(projectId, dim, r.ts, dims[dim] ?? NONE_KEY);
      b.conversions += r.counted;
      b.revenue += r.revenue;
    }
    const byType = breakdowns.get(projectId, "event_type", r.ts, r.type);
    byType.conversions += r.counted;
    byType.revenue += r.revenue;
  }
}

/** Every session of each person (all its visitors), any time: first touch and lookback both. */
async function touchesOfPeople(
  trx: Trx,
  projectId: string,
  keys: string[],
): Promise<Map<string, SessionTouch[]>> {
  const people = await visitorsOfPeople(trx, projectId, keys);
  const sessions = await sessionsOf(trx, projectId, [...new Set([...people.values()].flat())]);
  const out = new Map<string, SessionTouch[]>();
  for (const [key, members] of people)
    out.set(
      key,
      members.flatMap((v) => sessions.get(v) ?? []),
    );
  return out;
}
