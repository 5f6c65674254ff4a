import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbHandle, Trx } from "../../../platform/db/index.js";
import type { CommittedEvent, EventProcessor, FlushContext } from "../../../platform/event-bus.js";
import {
  type ConversionGoalT,
  conversionGoalsCache,
  scheduleGoalRecompute,
  matchesConversionGoal,
} from "../../goals/service.js";
import { type RawConnection, applyAnalyticsDeltas, rawConnection } from "./delta-store.js";
import { BreakdownDeltas } from "./breakdown-store.js";
import { creditConversions } from "./credit-store.js";
import {
  type FoundConversion,
  NO_DIMENSIONS,
  conversionRows,
  countConversions,
} from "./conversion-record.js";
import { NONE_KEY, SESSION_DIMENSIONS, type SessionDimensions, sessionDimensions } from "./dimensions.js";
import { visitorHash } from "./hll.js";
import { personKey } from "../people.js";
import { ActivityLog } from "./activity.js";
import { ALL_CHANNELS, RollupDeltas } from "./rollup-store.js";
import { type TouchpointRow, writeTouchpoints } from "./touchpoint-store.js";
import "../tables.js";

const CHUNK = 400;
export const SIGNUP_EVENT_TYPES = new Set(["signup", "sign_up"]);
export const SIGNUP_KEY = "$signup";

/**
 * The analytics event processor: touchpoints (session starts), conversions with their attribution
 * credits, per-goal hits and the daily rollup, all in the events commit transaction. Bot events
 * are left out of all of it. The per-event work is a session insert (usually a no-op conflict) and
 * a visitor hash; conversions, rare, carry the lookups.
 */
export function createAnalyticsProcessor(handle: Pick<DbHandle, "sqlite">): EventProcessor {
  const ctx: ProcessorContext = {
    raw: rawConnection(handle),
    goals: conversionGoalsCache(),
    seenSessions: new Map(),
    seenCount: 0,
    activity: new ActivityLog(),
  };
  return (trx, events, flush) => processAnalyticsEvents(trx, events, flush, ctx);
}

interface ProcessorContext {
  /** the connection the stores' prepared statements run on (SQLite's; none on PostgreSQL) */
  raw: RawConnection;
  /** the project's conversion goals, for the configuration version the transaction read */
  goals: ReturnType<typeof conversionGoalsCache>;
  /**
   * Sessions whose touchpoint this process already wrote, per project, so a continuing session
   * costs no statement. Per project: a session id is only the writer's to make unique, and
   * server-side or test callers may reuse one in another project. No key string is built per
   * event (the session id strings come from the writer's session cache, their hashes cached).
   * Safe across nodes (the row exists) and across a rolled-back commit (the events module then
   * gives a new session id, and a continuing session's row was committed before).
   */
  seenSessions: Map<string, Set<string>>;
  /** sessions held in `seenSessions` over all projects */
  seenCount: number;
  activity: ActivityLog;
}
const SEEN_SESSIONS_MAX = 200_000;

async function processAnalyticsEvents(
  trx: Trx,
  events: CommittedEvent[],
  flush: FlushContext,
  ctx: ProcessorContext,
): Promise<void> {
  const byProject = new Map<string, CommittedEvent[]>();
  for (const e of events) {
    if (e.isBot) continue;
    const list = byProject.get(e.projectId);
    if (list) list.push(e);
    else byProject.set(e.projectId, [e]);
  }
  const deltas = new RollupDeltas();
  const breakdowns = new BreakdownDeltas();
  ctx.activity.begin();
  for (const [projectId, list] of byProject) {
    const project = { id: projectId, workspaceId: list[0]!.workspaceId };
    // Server events (batch format, webhooks in, connectors) are not website visits: they convert,
    // but are neither visitors nor marketing touchpoints.
    const visits = list.filter((e) => e.origin === "web");
    const hashes = new Map<string, number>();
    const hashOf = (visitorId: string): number => {
      let h = hashes.get(visitorId);
      if (h === undefined) {
        h = visitorHash(visitorId);
        hashes.set(visitorId, h);
      }
      return h;
    };
    await recordTouchpoints(trx, projectId, visits, ctx, (e, dims) => {
      // A visitor counts under a session's values on the day the session started.
      const h = hashOf(e.visitorId);
      for (const d of SESSION_DIMENSIONS)
        breakdowns.get(projectId, d, e.timestamp, dims[d] ?? NONE_KEY).visitorHashes.add(h);
    });
    for (const e of visits) {
      const h = hashOf(e.visitorId);
      deltas.get(projectId, e.timestamp, e.channel).visitorHashes.add(h);
      deltas.get(projectId, e.timestamp, ALL_CHANNELS).visitorHashes.add(h);
    }
    // Event types count every person who sent one, server events included (not anonymous ones).
    for (const e of list)
      if (e.visitorId !== "") {
        breakdowns.get(projectId, "event_type", e.timestamp, e.type).visitorHashes.add(hashOf(e.visitorId));
        ctx.activity.note(projectId, e);
      }
    const goals = await ctx.goals(trx, project, flush.configVersion(projectId));
    const recorded = await recordConversions(trx, project, list, goals, deltas, breakdowns);
    if (recorded) await scheduleGoalRecompute(trx, project);
  }
  await applyAnalyticsDeltas(trx, deltas, breakdowns, ctx);
  await ctx.activity.write(trx, ctx.raw, flush);
}

/**
 * Writes a touchpoint per session not yet written, with its dimensions when this batch holds the
 * event that started it (`started` is called for those); a session continuing after a restart
 * finds its row already there.
 */
async function recordTouchpoints(
  trx: Trx,
  projectId: string,
  list: CommittedEvent[],
  ctx: ProcessorContext,
  started: (e: CommittedEvent, dims: SessionDimensions) => void,
): Promise<void> {
  // Per session: its earliest event here (the row's time) and the event that started it, if it
  // is in this batch (the dimensions'). They differ when a later event arrived first, or when
  // another process stored the start.
  const starts = new Map<string, { first: CommittedEvent; start: CommittedEvent | undefined }>();
  const seen = ctx.seenSessions.get(projectId);
  for (const e of list) {
    if (seen?.has(e.sessionId)) continue;
    const prev = starts.get(e.sessionId);
    if (!prev) starts.set(e.sessionId, { first: e, start: e.sessionStarted ? e : undefined });
    else {
      if (e.timestamp < prev.first.timestamp) prev.first = e;
      if (e.sessionStarted) prev.start = e;
    }
  }
  if (ctx.seenCount + starts.size > SEEN_SESSIONS_MAX) {
    ctx.seenSessions.clear();
    ctx.seenCount = 0;
  }
  if (starts.size > 0) {
    let set = ctx.seenSessions.get(projectId);
    if (!set) {
      set = new Set();
      ctx.seenSessions.set(projectId, set);
    }
    for (const id of starts.keys()) set.add(id);
    ctx.seenCount += starts.size;
  }
  // Sorted by session: concurrent flushes of two processes take the rows' locks in one order.
  // person_key is the visitor's: persons are resolved through analytics_links at credit time.
  const rows = [...starts.values()]
    .sort((a, b) =>
      a.first.sessionId < b.first.sessionId ? -1 : a.first.sessionId > b.first.sessionId ? 1 : 0,
    )
    .map(({ first, start }): TouchpointRow => {
      const dims = start ? sessionDimensions(start) : NO_DIMENSIONS;
      if (start) started(start, dims);
      return {
        sessionId: first.sessionId,
        visitorId: first.visitorId,
        personKey: personKey(first.visitorId, null),
        channel: first.channel,
        ts: first.timestamp,
        dims,
      };
    });
  await writeTouchpoints(trx, ctx.raw, projectId, rows);
}

/** Returns whether anything goal-relevant was recorded. */
async function recordConversions(
  trx: Trx,
  project: ProjectRef,
  list: CommittedEvent[],
  goals: ConversionGoalT[],
  deltas: RollupDeltas,
  breakdowns: BreakdownDeltas,
): Promise<boolean> {
  const found: FoundConversion[] = [];
  const hits: { project_id: string; goal_key: string; event_id: string; ts: number }[] = [];
  for (const e of list) {
    const isRevenue = e.type === "$revenue";
    const isSignup = SIGNUP_EVENT_TYPES.has(e.type);
    if (goals.length === 0 && !isRevenue && !isSignup) continue;
    const matched = goals.filter((g) => matchesConversionGoal(g, e));
    for (const g of matched)
      hits.push({ project_id: project.id, goal_key: g.id, event_id: e.id, ts: e.timestamp });
    if (isSignup || matched.some((g) => SIGNUP_EVENT_TYPES.has(g.name.toLowerCase())))
      hits.push({ project_id: project.id, goal_key: SIGNUP_KEY, event_id: e.id, ts: e.timestamp });
    if (matched.length > 0 || isRevenue) found.push({ e, goalId: matched[0]?.id ?? null, isRevenue });
  }
  for (let i = 0; i < hits.length; i += CHUNK) {
    await trx
      .insertInto("analytics_goal_hits")
      .values(hits.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(["project_id", "goal_key", "event_id"]).doNothing())
      .execute();
  }
  if (found.length === 0) return hits.length > 0;

  const { rows, firstDims, touches } = await conversionRows(trx, project, found);
  await creditConversions(trx, project.id, rows, false, touches);
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto("analytics_conversions")
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.column("event_id").doNothing())
      .execute();
  }
  countConversions(project.id, rows, firstDims, deltas, breakdowns);
  return true;
}
