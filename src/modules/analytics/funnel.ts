import type { ProjectRef } from "../../platform/auth/principal.js";
import { sql } from "kysely";
import type { DbOrTrx } from "../../platform/db/index.js";
import { compileGlob } from "../../platform/glob.js";
import { stepEventPages } from "../events/service.js";
import { NONE_KEY, type FunnelBreakdown } from "./dimensions.js";
import { leadsOfVisitors, personKey } from "./people.js";
import type { Period } from "./period.js";
import { DAY_MS } from "./rollup-store.js";
import { eventSql, hasLevel, sessionSql } from "./filter.js";
import type { ResolvedFilter } from "./filtered.js";

export interface FunnelStep {
  eventType: string;
  /** the event's URL, `*` matching any run of characters (anchored: "*\/pricing*") */
  urlPattern?: string;
  /** values the event's `data` must hold (compared as text) */
  conditions?: Record<string, string | number | boolean>;
}

export interface FunnelStepResult {
  index: number;
  label: string;
  count: number;
  conversionFromPrevious: number;
  conversionFromStart: number;
  /** null for the first step, and when nobody reached the step */
  medianSecondsFromPrevious: number | null;
}

/** One event of a person: its time and the steps it satisfies (bit k: step k). */
export interface StepHit {
  ts: number;
  mask: number;
  /** the event's session (read for a breakdown or a session filter) */
  session?: string;
}

/**
 * How far one person gets: for each entry (a first-step event inside the period), the steps in
 * order, each the earliest matching event after the previous one, all within `windowMs` of the
 * entry; the entry reaching furthest wins (the earliest among equals). Greedy earliest matching
 * is optimal for one entry, so a later entry is tried only when the window cut the earlier one.
 */
export function personProgress(
  hits: StepHit[],
  steps: number,
  windowMs: number,
  entryFrom: number,
  entryTo: number,
): number[] {
  let best: number[] = [];
  for (let i = 0; i < hits.length; i++) {
    const entry = hits[i]!;
    if (!(entry.mask & 1) || entry.ts < entryFrom || entry.ts >= entryTo) continue;
    const times = [entry.ts];
    let cut = false;
    for (let j = i + 1; j < hits.length && times.length < steps; j++) {
      const h = hits[j]!;
      if (h.ts > entry.ts + windowMs) {
        cut = true;
        break;
      }
      if (h.mask & (1 << times.length)) times.push(h.ts);
    }
    if (times.length > best.length) best = times;
    if (best.length === steps || !cut) break;
  }
  return best;
}

const lowestBit = (mask: number): number => 31 - Math.clz32(mask & -mask);

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The per-step figures from each person's progress (step times, ms). */
export function funnelResult(steps: FunnelStep[], progress: Iterable<number[]>): FunnelStepResult[] {
  const counts = steps.map(() => 0);
  const gaps: number[][] = steps.map(() => []);
  for (const times of progress)
    for (let k = 0; k < times.length; k++) {
      counts[k]!++;
      if (k > 0) gaps[k]!.push((times[k]! - times[k - 1]!) / 1000);
    }
  return steps.map((s, k) => ({
    index: k,
    label: s.urlPattern ? `${s.eventType} ${s.urlPattern}` : s.eventType,
    count: counts[k]!,
    conversionFromPrevious: k === 0 ? 1 : counts[k - 1]! > 0 ? counts[k]! / counts[k - 1]! : 0,
    conversionFromStart: counts[0]! > 0 ? counts[k]! / counts[0]! : 0,
    medianSecondsFromPrevious: k === 0 ? null : median(gaps[k]!),
  }));
}

/** The bit mask of the steps an event satisfies. */
function stepMatcher(steps: FunnelStep[]): (type: string, url: string, dataJson: string) => number {
  const compiled = steps.map((s) => ({
    type: s.eventType,
    // linear in pattern and URL (platform/glob.ts): a caller chooses both
    url: s.urlPattern ? compileGlob(s.urlPattern) : null,
    conditions: Object.entries(s.conditions ?? {}),
  }));
  return (type, url, dataJson) => {
    let mask = 0;
    let data: Record<string, unknown> | undefined;
    compiled.forEach((c, k) => {
      if (c.type !== type || (c.url && !c.url.test(url))) return;
      if (c.conditions.length > 0) {
        data ??= JSON.parse(dataJson) as Record<string, unknown>;
        if (!c.conditions.every(([key, v]) => data![key] !== undefined && String(data![key]) === String(v)))
          return;
      }
      mask |= 1 << k;
    });
    return mask;
  };
}

/**
 * A funnel over the project's stored events (bots left out): people — a lead's visitors together,
 * else the visitor — entering with a first step inside the period, then each step in order within
 * `windowDays` of the entry (later steps may fall after the period). Reads the events that may
 * match a step page by page (events/service.ts `stepEventPages`, URL patterns applied in SQL) and
 * keeps only a time and a step mask per event.
 */
export async function analyticsFunnel(
  db: DbOrTrx,
  project: ProjectRef,
  steps: FunnelStep[],
  windowDays: number,
  period: Period,
  breakdownBy?: FunnelBreakdown,
  /**
   * the report filter by scope: every step's event meets the event conditions; people enter by a
   * first-step event whose session meets the session conditions (later steps count whatever their
   * origin, servers' events included); the person meets the person conditions
   */
  filter?: ResolvedFilter,
): Promise<FunnelAnswer> {
  const windowMs = windowDays * DAY_MS;
  const entryFrom = period.fromDay * DAY_MS;
  const entryTo = (period.toDay + 1) * DAY_MS;
  const match = stepMatcher(steps);
  const byVisitor = new Map<string, StepHit[]>();
  const filters = steps.map((s) => ({ type: s.eventType, urlPattern: s.urlPattern }));
  const bySession = filter !== undefined && hasLevel(filter.conds, "session");
  for await (const page of stepEventPages(db, project, { from: entryFrom, to: entryTo + windowMs }, filters, {
    withSession: breakdownBy !== undefined || bySession,
    where: filter ? (eventSql(filter.conds, filter.postgres) ?? undefined) : undefined,
  })) {
    for (const e of page) {
      const mask = match(e.type, e.url, e.data);
      if (mask === 0 || e.visitor_id === "") continue;
      if (filter?.people && !filter.people.visitor(e.visitor_id)) continue;
      let list = byVisitor.get(e.visitor_id);
      if (!list) {
        list = [];
        byVisitor.set(e.visitor_id, list);
      }
      list.push(
        breakdownBy || bySession
          ? { ts: Number(e.ts), mask, session: e.session_id }
          : { ts: Number(e.ts), mask },
      );
    }
  }
  if (bySession) await keepEntriesIn(db, project, byVisitor, filter!);
  // A lead's visitors are one person (analytics' own visitor → lead map).
  const leads = await leadsOfVisitors(db, project.id, [...byVisitor.keys()]);
  const byPerson = new Map<string, StepHit[]>();
  for (const [visitorId, hits] of byVisitor) {
    const key = personKey(visitorId, leads.get(visitorId));
    const list = byPerson.get(key);
    if (list) list.push(...hits);
    else byPerson.set(key, hits);
  }
  const progress: number[][] = [];
  /** per person who entered: the session of the entry event */
  const entrySessions: string[] = [];
  for (const hits of byPerson.values()) {
    // Events of one millisecond: the one matching an earlier step first.
    hits.sort((a, b) => a.ts - b.ts || lowestBit(a.mask) - lowestBit(b.mask));
    const times = personProgress(hits, steps.length, windowMs, entryFrom, entryTo);
    progress.push(times);
    // The greedy match enters at the first first-step event of its time.
    if (breakdownBy && times.length > 0)
      entrySessions.push(hits.find((h) => h.mask & 1 && h.ts === times[0])!.session ?? "");
  }
  const answer: FunnelAnswer = {
    steps: funnelResult(steps, progress),
    windowDays,
    period: { from: period.from, to: period.to },
  };
  if (!breakdownBy) return answer;
  const values = await sessionValues(db, project.id, entrySessions, breakdownBy);
  const groups = new Map<string, number[][]>();
  let k = 0;
  for (const times of progress) {
    if (times.length === 0) continue;
    const key = values.get(entrySessions[k++]!) ?? NONE_KEY;
    const list = groups.get(key);
    if (list) list.push(times);
    else groups.set(key, [times]);
  }
  answer.breakdown = {
    by: breakdownBy,
    groups: [...groups]
      .sort(([ka, a], [kb, b]) => b.length - a.length || ka.localeCompare(kb))
      .slice(0, BREAKDOWN_GROUPS)
      .map(([key, list]) => ({ key, steps: funnelResult(steps, list) })),
  };
  return answer;
}

export interface FunnelAnswer {
  steps: FunnelStepResult[];
  windowDays: number;
  period: { from: string; to: string };
  breakdown?: { by: FunnelBreakdown; groups: { key: string; steps: FunnelStepResult[] }[] };
}

/** A funnel broken down shows the groups with the most entrants. */
const BREAKDOWN_GROUPS = 20;
const CHUNK = 400;

/**
 * A session filter selects people by the session they entered in: a first-step event outside a
 * session that meets it (or with none: a server's event) cannot be an entry, though it may still
 * serve a later step.
 */
async function keepEntriesIn(
  db: DbOrTrx,
  project: ProjectRef,
  byVisitor: Map<string, StepHit[]>,
  filter: ResolvedFilter,
): Promise<void> {
  const candidates = new Set<string>();
  for (const hits of byVisitor.values())
    for (const h of hits) if (h.mask & 1 && h.session) candidates.add(h.session);
  const ok = new Set<string>();
  const condition = sessionSql(filter.conds, filter.postgres)!;
  const ids = [...candidates];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const { rows } = await sql<{ session_id: string }>`select t.session_id from analytics_touchpoints t
      where t.project_id = ${project.id} and t.session_id in (${sql.join(ids.slice(i, i + CHUNK))}) and ${condition}`.execute(
      db,
    );
    for (const r of rows) ok.add(r.session_id);
  }
  for (const [visitor, hits] of byVisitor) {
    const kept = hits.filter((h) => {
      if (h.mask & 1 && !(h.session && ok.has(h.session))) h.mask &= ~1;
      return h.mask !== 0;
    });
    if (kept.length > 0) byVisitor.set(visitor, kept);
    else byVisitor.delete(visitor);
  }
}

/** Each session's value of `dimension`, from its touchpoint (missing for server events: none). */
async function sessionValues(
  db: DbOrTrx,
  projectId: string,
  sessionIds: string[],
  dimension: FunnelBreakdown,
): Promise<Map<string, string>> {
  const ids = [...new Set(sessionIds.filter((s) => s !== ""))];
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .selectFrom("analytics_touchpoints")
      .select(["session_id", `${dimension} as value`])
      .where("project_id", "=", projectId)
      .where("session_id", "in", ids.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) if (r.value !== null) out.set(r.session_id, r.value);
  }
  return out;
}
