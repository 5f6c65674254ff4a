import { type RawBuilder, sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { type DbOrTrx, isPostgresDb } from "../../platform/db/index.js";
import type { ReadDeps } from "../../platform/deps.js";
import { eventRowPages } from "../events/service.js";
import { SESSION_DIMENSIONS, type SessionDimensions } from "./dimensions.js";
import { type Condition, eventSql, hasLevel, sessionSql, testSession } from "./filter.js";
import { type PersonTest, personTest } from "./person-test.js";
import { sessionsOf, visitorsOfPeople } from "./people.js";
import "./tables.js";

/**
 * The raw-data side of filtered reports (docs/decisions/identity-analytics.md, "Filters and
 * cohorts"). What a filter selects:
 * - a **visit**: a web session started in the range whose values meet the session conditions —
 *   or, when there are event conditions, a web event in the range that meets them, in a session
 *   that meets the session conditions;
 * - a **conversion** in the range: its event meets the event conditions, and its person's first
 *   touch meets the session conditions (as conversions are credited everywhere in Lift);
 * - both only for people who meet the person conditions (lead properties, cohorts).
 * Reads stream in pages: sessions from `analytics_touchpoints` by time, events through the events
 * module's keyset pages. Memory is one page plus the per-visitor sets a report keeps.
 */

export interface ResolvedFilter {
  conds: Condition[];
  people: PersonTest | null;
  postgres: boolean;
}

export async function resolveFilter(
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
): Promise<ResolvedFilter> {
  return { conds, people: await personTest(deps, project, conds), postgres: isPostgresDb(deps.db) };
}

/** [from, to) in epoch ms */
export interface Range {
  from: number;
  to: number;
}

export interface Visit {
  visitorId: string;
  /** a server event's visitor (with `serverToo`): one of the people, but no visit of a channel */
  server?: boolean;
  ts: number;
  channel: string;
  sessionId: string;
  /** with `dims` */
  dims?: SessionDimensions;
  /** from the events source: the event's type */
  type?: string;
}

const PAGE = 20_000;
const CHUNK = 400;

/** Whether visits must come from events (event conditions, or a report by event type). */
export const visitsFromEvents = (f: ResolvedFilter, byType = false) => byType || hasLevel(f.conds, "event");

/**
 * The visits the filter selects, page by page. `conversionIds`: conversion events to check
 * against the event conditions on the way (the events source only); matches go to `matched`.
 */
export async function* matchingVisits(
  db: DbOrTrx,
  project: ProjectRef,
  f: ResolvedFilter,
  range: Range,
  opts: {
    dims?: boolean;
    byType?: boolean;
    conversionIds?: Set<string>;
    matched?: Set<string>;
    pageRows?: number;
    /** event conditions: server events that meet them count their visitor too ("people who did X") */
    serverToo?: boolean;
  } = {},
): AsyncGenerator<Visit[]> {
  if (!visitsFromEvents(f, opts.byType)) {
    yield* sessionVisits(db, project, f, range, opts.dims ?? false, opts.pageRows ?? PAGE);
    return;
  }
  const session = sessionSql(f.conds, f.postgres);
  const sessionOk = session
    ? sql`(case when exists (select 1 from analytics_touchpoints t where t.project_id = events.project_id
        and t.session_id = events.session_id and ${session}) then 1 else 0 end)`
    : sql`1`;
  type Row = {
    id: string;
    visitor_id: string;
    channel: string;
    ts: number | string;
    type: string;
    is_server: number;
    session_id: string;
    s_ok: number;
  };
  const columns = sql`id, visitor_id, channel, ts, type, is_server, session_id, ${sessionOk} as s_ok`;
  for await (const page of eventRowPages<Row>(
    db,
    project,
    range,
    columns,
    eventSql(f.conds, f.postgres),
    opts.pageRows,
  )) {
    const out: Visit[] = [];
    for (const r of page) {
      if (opts.conversionIds?.has(r.id)) opts.matched?.add(r.id);
      const server = Number(r.is_server) === 1;
      if ((server && !opts.serverToo) || r.visitor_id === "" || Number(r.s_ok) !== 1) continue;
      if (f.people && !f.people.visitor(r.visitor_id)) continue;
      out.push({
        server,
        visitorId: r.visitor_id,
        ts: Number(r.ts),
        channel: r.channel,
        sessionId: r.session_id,
        type: r.type,
      });
    }
    if (opts.dims && out.length > 0) {
      const dims = await dimsOfSessions(db, project.id, [...new Set(out.map((v) => v.sessionId))]);
      for (const v of out) v.dims = dims.get(v.sessionId);
    }
    if (out.length > 0) yield out;
  }
}

/** Sessions started in the range (one touchpoint row each), keyset on (ts, session_id). */
async function* sessionVisits(
  db: DbOrTrx,
  project: ProjectRef,
  f: ResolvedFilter,
  range: Range,
  withDims: boolean,
  pageRows: number,
): AsyncGenerator<Visit[]> {
  const session = sessionSql(f.conds, f.postgres);
  const cols = withDims ? sql.raw(`, ${SESSION_DIMENSIONS.map((d) => `t.${d}`).join(", ")}`) : sql``;
  let after: { ts: number; sid: string } | null = null;
  for (;;) {
    // `ts >= last` bounds the index range (the OR alone would be a filter: every page would
    // read the period from its start again).
    const keyset: RawBuilder<unknown> = after
      ? sql` and t.ts >= ${after.ts} and (t.ts > ${after.ts} or t.session_id > ${after.sid})`
      : sql``;
    const { rows } = await sql<
      Record<string, string | number | null>
    >`select t.session_id, t.visitor_id, t.channel, t.ts${cols}
      from analytics_touchpoints t where t.project_id = ${project.id} and t.ts >= ${range.from} and t.ts < ${range.to}${keyset}
      ${session ? sql` and ${session}` : sql``} order by t.ts, t.session_id limit ${pageRows}`.execute(db);
    if (rows.length === 0) return;
    const out: Visit[] = [];
    for (const r of rows) {
      const visitorId = String(r.visitor_id);
      if (f.people && !f.people.visitor(visitorId)) continue;
      const v: Visit = {
        visitorId,
        ts: Number(r.ts),
        channel: String(r.channel),
        sessionId: String(r.session_id),
      };
      if (withDims) {
        const dims = {} as SessionDimensions;
        for (const d of SESSION_DIMENSIONS) dims[d] = (r[d] as string | null) ?? null;
        v.dims = dims;
      }
      out.push(v);
    }
    const last = rows[rows.length - 1]!;
    after = { ts: Number(last.ts), sid: String(last.session_id) };
    if (out.length > 0) yield out;
    if (rows.length < pageRows) return;
  }
}

/** Each session's dimensions, from its touchpoint (primary key lookups). */
async function dimsOfSessions(
  db: DbOrTrx,
  projectId: string,
  ids: string[],
): Promise<Map<string, SessionDimensions>> {
  const out = new Map<string, SessionDimensions>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .selectFrom("analytics_touchpoints")
      .select(["session_id", ...SESSION_DIMENSIONS])
      .where("project_id", "=", projectId)
      .where("session_id", "in", ids.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) {
      const dims = {} as SessionDimensions;
      for (const d of SESSION_DIMENSIONS) dims[d] = r[d];
      out.set(r.session_id, dims);
    }
  }
  return out;
}

export interface ConversionFact {
  eventId: string;
  visitorId: string;
  personKey: string;
  leadId: string | null;
  channel: string;
  type: string;
  ts: number;
  revenue: number;
  counted: number;
  credits: string | null;
  currency: string | null;
  /** the person's first-touch session values (with `dims`) */
  dims?: SessionDimensions;
}

/** The project's conversions in the range (refunds included: counted 0). */
export async function conversionsIn(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
): Promise<ConversionFact[]> {
  const rows = await db
    .selectFrom("analytics_conversions")
    .select([
      "event_id",
      "visitor_id",
      "person_key",
      "lead_id",
      "channel",
      "type",
      "ts",
      "revenue",
      "counted",
      "credits",
      "currency",
    ])
    .where("project_id", "=", project.id)
    .where("ts", ">=", range.from)
    .where("ts", "<", range.to)
    .execute();
  return rows.map((r) => ({
    eventId: r.event_id,
    visitorId: r.visitor_id,
    personKey: r.person_key,
    leadId: r.lead_id,
    channel: r.channel,
    type: r.type,
    ts: Number(r.ts),
    revenue: Number(r.revenue),
    counted: Number(r.counted),
    credits: r.credits,
    currency: r.currency,
  }));
}

/**
 * The conversions the filter selects, from `candidates` (`conversionsIn`). `matchedEvents`: the
 * candidates whose events met the event conditions (from a visits pass); without it, and with
 * event conditions, the range's events are read here.
 */
export async function matchingConversions(
  db: DbOrTrx,
  project: ProjectRef,
  f: ResolvedFilter,
  range: Range,
  candidates: ConversionFact[],
  opts: { matchedEvents?: Set<string>; dims?: boolean } = {},
): Promise<ConversionFact[]> {
  let list = candidates;
  if (f.people) list = list.filter((c) => f.people!.person(c.personKey, c.leadId));
  if (hasLevel(f.conds, "event") && list.length > 0) {
    let matched = opts.matchedEvents;
    if (!matched) {
      matched = new Set();
      const ids = new Set(list.map((c) => c.eventId));
      const types = [...new Set(list.map((c) => c.type))];
      const where = sql<boolean>`type in (${sql.join(types)}) and ${eventSql(f.conds, f.postgres)!}`;
      for await (const page of eventRowPages<{ id: string }>(db, project, range, sql`id`, where))
        for (const r of page) if (ids.has(r.id)) matched.add(r.id);
    }
    list = list.filter((c) => matched!.has(c.eventId));
  }
  const needDims = opts.dims || f.conds.some((c) => c.level === "session" && c.field !== "channel");
  if (needDims && list.length > 0) {
    const first = await firstTouchDims(db, project.id, [...new Set(list.map((c) => c.personKey))]);
    for (const c of list) c.dims = first.get(c.personKey);
  }
  if (hasLevel(f.conds, "session"))
    list = list.filter((c) => testSession(f.conds, c.channel, c.dims ?? null));
  return list;
}

/** Each person's first session's values (all its visitors' sessions), as the processor credits. */
async function firstTouchDims(
  db: DbOrTrx,
  projectId: string,
  keys: string[],
): Promise<Map<string, SessionDimensions>> {
  // visitorsOfPeople / sessionsOf read only; they take a transaction type for the ingest path.
  const trx = db as Parameters<typeof visitorsOfPeople>[0];
  const people = await visitorsOfPeople(trx, projectId, keys);
  const sessions = await sessionsOf(trx, projectId, [...new Set([...people.values()].flat())]);
  const out = new Map<string, SessionDimensions>();
  for (const [key, visitors] of people) {
    let first: { ts: number; dims: SessionDimensions } | undefined;
    for (const v of visitors) for (const s of sessions.get(v) ?? []) if (!first || s.ts < first.ts) first = s;
    if (first) out.set(key, first.dims);
  }
  return out;
}
