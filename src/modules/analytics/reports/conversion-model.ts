import { sql } from "kysely";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import { validation } from "../../../platform/errors.js";
import { listConversionGoals } from "../../goals/service.js";
import { NONE_KEY, SESSION_DIMENSIONS, type SessionDimension } from "../ingest/dimensions.js";
import { leadsOfVisitors, linksOfProject, personKey } from "../people.js";
import "../tables.js";

/**
 * One conversion model (docs/decisions/identity-analytics.md, "One conversion model"):
 * - a **conversion** is an event matching the chosen conversion goal (`goal=<id>`), or any
 *   conversion goal by default (which includes `$revenue` events, as always);
 * - a **rate** is converted people ÷ people of one population: the period's visitors (those with a
 *   web visit in it), and among them those whose person converted in the period. A conversion of
 *   someone who never visited counts as a conversion (unattributed), never in a rate;
 * - **per channel** (or any session value) both sides stand on one basis, the person's first
 *   touch: the period's visitors whose person came first from the channel, and those of them who
 *   converted.
 */

export interface GoalRef {
  id: string;
  name: string;
}

/** [from, to) in epoch ms */
interface Range {
  from: number;
  to: number;
}

const ANY = "any";

/** The `goal` parameter: one of the project's conversion goals, or any (absent or "any"). */
export async function resolveGoal(
  db: DbOrTrx,
  project: ProjectRef,
  goal: string | undefined,
  field = "query.goal",
): Promise<GoalRef | null> {
  if (goal === undefined || goal === ANY) return null;
  const found = (await listConversionGoals(db, project)).find((g) => g.id === goal);
  if (!found) throw validation(`${field}: no conversion goal ${goal} in this project (or "any")`);
  return { id: found.id, name: found.name };
}

/** The goal's hits as a condition on a conversion row `c` (the row's event matched the goal). */
const hitOf = (goal: GoalRef) =>
  sql<boolean>`exists (select 1 from analytics_goal_hits h where h.project_id = c.project_id
    and h.goal_key = ${goal.id} and h.event_id = c.event_id)`;

/** Ids of the events in the range that matched the goal. */
export async function goalEventIds(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
  goal: GoalRef,
): Promise<Set<string>> {
  const { rows } = await sql<{ event_id: string }>`
    select h.event_id from analytics_goal_hits h where h.project_id = ${project.id} and h.goal_key = ${goal.id}
    and h.ts >= ${range.from} and h.ts < ${range.to}`.execute(db);
  return new Set(rows.map((r) => r.event_id));
}

/** Counted conversions of the goal in the range: how many, their revenue, per rollup channel. */
export async function goalConversions(db: DbOrTrx, project: ProjectRef, range: Range, goal: GoalRef) {
  const { rows } = await sql<{ channel: string; conversions: number | string; revenue: number | string }>`
    select c.channel, sum(c.counted) as conversions, sum(c.revenue) as revenue
    from analytics_conversions c
    where c.project_id = ${project.id} and c.ts >= ${range.from} and c.ts < ${range.to} and ${hitOf(goal)}
    group by c.channel`.execute(db);
  const byChannel = new Map<string, { conversions: number; revenue: number }>();
  let conversions = 0;
  let revenue = 0;
  for (const r of rows) {
    const c = { conversions: Number(r.conversions), revenue: Number(r.revenue) };
    byChannel.set(r.channel, c);
    conversions += c.conversions;
    revenue += c.revenue;
  }
  return { conversions, revenue, byChannel };
}

/** Counted conversions of the goal and their revenue per UTC day of the range (the time series). */
export async function goalConversionsByDay(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
  goal: GoalRef,
  channels?: Set<string>,
): Promise<Map<number, { conversions: number; revenue: number }>> {
  const { rows } = await sql<{ ts: number | string; counted: number | string; revenue: number | string }>`
    select c.ts, c.counted, c.revenue from analytics_conversions c
    where c.project_id = ${project.id} and c.ts >= ${range.from} and c.ts < ${range.to} and ${hitOf(goal)}
    ${channels ? sql`and c.channel in (${sql.join([...channels])})` : sql``}`.execute(db);
  const out = new Map<number, { conversions: number; revenue: number }>();
  for (const r of rows) {
    const day = Math.floor(Number(r.ts) / DAY_MS);
    const d = out.get(day) ?? { conversions: 0, revenue: 0 };
    d.conversions += Number(r.counted);
    d.revenue += Number(r.revenue);
    out.set(day, d);
  }
  return out;
}

const DAY_MS = 86_400_000;

/** Counted conversions of the goal and their revenue per event type (a breakdown by event_type). */
export async function goalConversionsByType(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
  goal: GoalRef,
): Promise<Map<string, { conversions: number; revenue: number }>> {
  const { rows } = await sql<{ type: string; conversions: number | string; revenue: number | string }>`
    select c.type, sum(c.counted) as conversions, sum(c.revenue) as revenue from analytics_conversions c
    where c.project_id = ${project.id} and c.ts >= ${range.from} and c.ts < ${range.to} and ${hitOf(goal)}
    group by c.type`.execute(db);
  return new Map(
    rows.map((r) => [r.type, { conversions: Number(r.conversions), revenue: Number(r.revenue) }]),
  );
}

/** Visitors who sent an event of the type in the range (whole UTC days; bots and anonymous server events left out). */
export async function visitorsWhoSent(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
  type: string,
): Promise<string[]> {
  const { rows } = await sql<{ visitor_id: string }>`
    select distinct visitor_id from analytics_activity where project_id = ${project.id}
    and day >= ${Math.floor(range.from / DAY_MS)} and day < ${Math.ceil(range.to / DAY_MS)} and type = ${type}`.execute(
    db,
  );
  return rows.map((r) => r.visitor_id);
}

/** Anonymous server conversions (no visitor, no lead) are nobody's. */
const ANONYMOUS = "v:";

/** People (person keys) with a counted conversion of the goal (any: null) in the range. */
export async function convertersIn(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
  goal: GoalRef | null,
): Promise<Set<string>> {
  const { rows } = await sql<{ person_key: string }>`
    select distinct c.person_key from analytics_conversions c
    where c.project_id = ${project.id} and c.ts >= ${range.from} and c.ts < ${range.to} and c.counted = 1
    ${goal ? sql`and ${hitOf(goal)}` : sql``}`.execute(db);
  const out = new Set(rows.map((r) => r.person_key));
  out.delete(ANONYMOUS);
  return out;
}

/** Visitors with a web visit (a session start) in the range; with `channels`, on one of them. */
export async function periodVisitorIds(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
  channels?: Set<string>,
): Promise<string[]> {
  const { rows } = await sql<{ visitor_id: string }>`
    select distinct t.visitor_id from analytics_touchpoints t
    where t.project_id = ${project.id} and t.ts >= ${range.from} and t.ts < ${range.to}
    ${channels ? sql`and t.channel in (${sql.join([...channels])})` : sql``}`.execute(db);
  return rows.map((r) => r.visitor_id);
}

/** A first-touch basis: `channel` or a session dimension. */
export type TouchKey = "channel" | SessionDimension;

export interface BasisRow {
  /** the population's visitors whose person's first touch had this value */
  visitors: number;
  /** those of them whose person converted */
  converted: number;
}

export interface PopulationRates {
  /** the population's visitors whose person converted */
  converted: number;
  /** per first-touch value of each key asked */
  by: Map<TouchKey, Map<string, BasisRow>>;
}

/** A population of visitors with their leads, read once for several goals' rates. */
export class Population {
  private constructor(
    readonly visitors: string[],
    readonly leadOf: Map<string, string>,
  ) {}

  static async of(db: DbOrTrx, project: ProjectRef, visitors: Iterable<string>): Promise<Population> {
    const list = [...new Set(visitors)];
    return new Population(list, await leadsOfVisitors(db, project.id, list));
  }

  /** The visitors whose person is among `converters`. */
  converted(converters: Set<string>): number {
    let n = 0;
    for (const v of this.visitors) if (converters.has(personKey(v, this.leadOf.get(v)))) n++;
    return n;
  }
}

/** Past this many visitors, one pass over the project's sessions beats lookups by visitor. */
const LOOKUPS_MAX = 4000;
const CHUNK = 400;

/**
 * The rate's numerator for a population of visitors, and both sides per first-touch value of each
 * key: a visitor belongs to its person (a lead's visitors together), and a person's first touch is
 * the earliest session of any of its visitors, ever.
 */
export async function populationRates(
  db: DbOrTrx,
  project: ProjectRef,
  population: Iterable<string> | Population,
  converters: Set<string>,
  keys: TouchKey[] = [],
): Promise<PopulationRates> {
  const pop = population instanceof Population ? population : await Population.of(db, project, population);
  const { visitors, leadOf } = pop;
  const personOf = (v: string) => personKey(v, leadOf.get(v));
  const converted = pop.converted(converters);
  const by = new Map<TouchKey, Map<string, BasisRow>>(keys.map((k) => [k, new Map()]));
  if (keys.length === 0) return { converted, by };
  const first = await firstTouches(db, project, visitors, leadOf, keys);
  for (const v of visitors) {
    const person = personOf(v);
    const hit = converters.has(person);
    for (const k of keys) {
      const value = first.get(person)?.values[k] ?? NONE_KEY;
      const rows = by.get(k)!;
      const row = rows.get(value) ?? { visitors: 0, converted: 0 };
      row.visitors++;
      if (hit) row.converted++;
      rows.set(value, row);
    }
  }
  return { converted, by };
}

/**
 * Each person's first touch (the earliest session of any of its visitors, ever), for the people of
 * the given visitors: every visitor of their leads has a say.
 */
async function firstTouches(
  db: DbOrTrx,
  project: ProjectRef,
  visitors: string[],
  leadOf: Map<string, string>,
  keys: TouchKey[],
): Promise<Map<string, FirstSession>> {
  const members = new Map<string, string>(visitors.map((v) => [v, personKey(v, leadOf.get(v))]));
  const leads = new Set(leadOf.values());
  if (leads.size > 0)
    for (const r of await linksOfProject(db, project.id))
      if (leads.has(r.lead_id)) members.set(r.visitor_id, personKey(r.visitor_id, r.lead_id));
  const first = new Map<string, FirstSession>();
  for (const [visitor, s] of await firstSessions(db, project, [...members.keys()], keys)) {
    const person = members.get(visitor)!;
    const held = first.get(person);
    if (!held || s.ts < held.ts || (s.ts === held.ts && s.sessionId < held.sessionId)) first.set(person, s);
  }
  return first;
}

/**
 * The goal's counted conversions in the range per first-touch value of `key` (the person's, at
 * query time; `(none)` for people who never visited) — a breakdown's conversions for one goal.
 */
export async function goalConversionsByFirstTouch(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
  goal: GoalRef,
  key: TouchKey,
): Promise<Map<string, { conversions: number; revenue: number }>> {
  const { rows } = await sql<{
    visitor_id: string;
    lead_id: string | null;
    counted: number | string;
    revenue: number | string;
  }>`
    select c.visitor_id, c.lead_id, c.counted, c.revenue from analytics_conversions c
    where c.project_id = ${project.id} and c.ts >= ${range.from} and c.ts < ${range.to} and ${hitOf(goal)}`.execute(
    db,
  );
  const leadOf = new Map<string, string>();
  for (const r of rows) if (r.lead_id) leadOf.set(r.visitor_id, r.lead_id);
  const first = await firstTouches(db, project, [...new Set(rows.map((r) => r.visitor_id))], leadOf, [key]);
  const out = new Map<string, { conversions: number; revenue: number }>();
  for (const r of rows) {
    const value = first.get(personKey(r.visitor_id, r.lead_id))?.values[key] ?? NONE_KEY;
    const row = out.get(value) ?? { conversions: 0, revenue: 0 };
    row.conversions += Number(r.counted);
    row.revenue += Number(r.revenue);
    out.set(value, row);
  }
  return out;
}

interface FirstSession {
  ts: number;
  sessionId: string;
  values: Partial<Record<TouchKey, string>>;
}

/** Each visitor's first session (its earliest touchpoint) with the keys' values. */
async function firstSessions(
  db: DbOrTrx,
  project: ProjectRef,
  visitorIds: string[],
  keys: TouchKey[],
): Promise<Map<string, FirstSession>> {
  const columns = sql.raw(keys.map((k) => `t.${checkedKey(k)}`).join(", "));
  const out = new Map<string, FirstSession>();
  const read = async (only?: string[]) => {
    const { rows } = await sql<Record<string, string | number | null>>`
      select visitor_id, ts, session_id, ${sql.raw(keys.map(checkedKey).join(", "))} from (
        select t.visitor_id, t.ts, t.session_id, ${columns},
          row_number() over (partition by t.visitor_id order by t.ts, t.session_id) as rn
        from analytics_touchpoints t where t.project_id = ${project.id}
        ${only ? sql`and t.visitor_id in (${sql.join(only)})` : sql``}
      ) firsts where rn = 1`.execute(db);
    for (const r of rows) {
      const values: Partial<Record<TouchKey, string>> = {};
      for (const k of keys) values[k] = (r[k] as string | null) ?? NONE_KEY;
      out.set(String(r.visitor_id), { ts: Number(r.ts), sessionId: String(r.session_id), values });
    }
  };
  if (visitorIds.length > LOOKUPS_MAX) await read();
  else for (let i = 0; i < visitorIds.length; i += CHUNK) await read(visitorIds.slice(i, i + CHUNK));
  return out;
}

/** Column names come from a fixed list, never from a caller. */
function checkedKey(k: TouchKey): string {
  if (k !== "channel" && !(SESSION_DIMENSIONS as readonly string[]).includes(k))
    throw new Error(`not a session key: ${k}`);
  return k;
}

/** converted ÷ visitors, 0 without visitors, never past 1; six decimals. */
export const rateOf = (converted: number, visitors: number): number =>
  visitors > 0 ? Math.round(Math.min(1, converted / visitors) * 1e6) / 1e6 : 0;
