import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import type { CommittedEvent } from "../../platform/event-bus.js";
import { matchesConversionGoal } from "../goals/matching.js";
import type { ConversionGoalT } from "../goals/schema.js";
import { listConversionGoals, scheduleGoalRecompute } from "../goals/service.js";
import { creditConversions } from "./credit-store.js";
import { visitorHash } from "./hll.js";
import { ALL_CHANNELS, RollupDeltas, applyRollupDeltas } from "./rollup-store.js";
import { personKey } from "./sink.js";
import type { ConversionTable } from "./tables.js";
import "./tables.js";

const CHUNK = 400;
export const SIGNUP_EVENT_TYPES = new Set(["signup", "sign_up"]);
export const SIGNUP_KEY = "$signup";

/** Conversion goals per project, cached briefly: the processor holds the writer, goals change rarely. */
const GOAL_CACHE_MS = 2000;
const goalCache = new Map<string, { at: number; goals: ConversionGoalT[] }>();
async function goalsFor(trx: Trx, project: ProjectRef): Promise<ConversionGoalT[]> {
  const hit = goalCache.get(project.id);
  if (hit && Date.now() - hit.at < GOAL_CACHE_MS) return hit.goals;
  const goals = await listConversionGoals(trx, project);
  goalCache.set(project.id, { at: Date.now(), goals });
  return goals;
}
/** Tests that define goals right before sending events drop the cached list. */
export function forgetCachedGoals(projectId: string): void {
  goalCache.delete(projectId);
}

const chunks = <T>(xs: T[]): T[][] =>
  Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));

/**
 * The analytics event processor: touchpoints (session starts), conversions, per-goal hits and the
 * daily rollup, all in the events commit transaction. Bot events are left out of all of it.
 */
export async function processAnalyticsEvents(trx: Trx, events: CommittedEvent[]): Promise<void> {
  const byProject = new Map<string, CommittedEvent[]>();
  for (const e of events) {
    if (e.isBot) continue;
    const list = byProject.get(e.projectId);
    if (list) list.push(e);
    else byProject.set(e.projectId, [e]);
  }
  const deltas = new RollupDeltas();
  for (const [projectId, list] of byProject) {
    const project = { id: projectId, workspaceId: list[0]!.workspaceId };
    const links = await linksOf(trx, projectId, [...new Set(list.map((e) => e.visitorId))]);
    const keyOf = (e: CommittedEvent) => personKey(e.visitorId, links.get(e.visitorId));
    await recordTouchpoints(trx, projectId, list, keyOf);
    for (const e of list) {
      const h = visitorHash(e.visitorId);
      deltas.get(projectId, e.timestamp, e.channel).visitorHashes.add(h);
      deltas.get(projectId, e.timestamp, ALL_CHANNELS).visitorHashes.add(h);
    }
    const recorded = await recordConversions(trx, project, list, keyOf, links, deltas);
    if (recorded) await scheduleGoalRecompute(trx, project);
  }
  await applyRollupDeltas(trx, deltas);
}

async function linksOf(trx: Trx, projectId: string, visitorIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const part of chunks(visitorIds)) {
    const rows = await trx
      .selectFrom("analytics_links")
      .select(["visitor_id", "lead_id"])
      .where("project_id", "=", projectId)
      .where("visitor_id", "in", part)
      .execute();
    for (const r of rows) out.set(r.visitor_id, r.lead_id);
  }
  return out;
}

async function recordTouchpoints(
  trx: Trx,
  projectId: string,
  list: CommittedEvent[],
  keyOf: (e: CommittedEvent) => string,
): Promise<void> {
  const starts = new Map<string, CommittedEvent>();
  for (const e of list) {
    const prev = starts.get(e.sessionId);
    if (!prev || e.timestamp < prev.timestamp) starts.set(e.sessionId, e);
  }
  for (const part of chunks([...starts.values()])) {
    await trx
      .insertInto("analytics_touchpoints")
      .values(
        part.map((e) => ({
          project_id: projectId,
          session_id: e.sessionId,
          visitor_id: e.visitorId,
          person_key: keyOf(e),
          channel: e.channel,
          ts: e.timestamp,
        })),
      )
      .onConflict((oc) => oc.columns(["project_id", "session_id"]).doNothing())
      .execute();
  }
}

function revenueOf(e: CommittedEvent): number {
  const v = e.data?.revenue;
  const n = typeof v === "string" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : 0;
}

/** Returns whether anything goal-relevant was recorded. */
async function recordConversions(
  trx: Trx,
  project: ProjectRef,
  list: CommittedEvent[],
  keyOf: (e: CommittedEvent) => string,
  links: Map<string, string>,
  deltas: RollupDeltas,
): Promise<boolean> {
  const goals = await goalsFor(trx, project);
  const conversions: { e: CommittedEvent; row: ConversionTable }[] = [];
  const hits: { project_id: string; goal_key: string; event_id: string; ts: number }[] = [];
  for (const e of list) {
    const matched = goals.filter((g) => matchesConversionGoal(g, e));
    const isRevenue = e.type === "$revenue";
    const isSignup =
      SIGNUP_EVENT_TYPES.has(e.type) || matched.some((g) => SIGNUP_EVENT_TYPES.has(g.name.toLowerCase()));
    for (const g of matched)
      hits.push({ project_id: project.id, goal_key: g.id, event_id: e.id, ts: e.timestamp });
    if (isSignup)
      hits.push({ project_id: project.id, goal_key: SIGNUP_KEY, event_id: e.id, ts: e.timestamp });
    if (matched.length === 0 && !isRevenue) continue;
    const revenue = revenueOf(e);
    conversions.push({
      e,
      row: {
        event_id: e.id,
        project_id: project.id,
        visitor_id: e.visitorId,
        person_key: keyOf(e),
        lead_id: links.get(e.visitorId) ?? null,
        goal_id: matched[0]?.id ?? null,
        type: e.type,
        revenue,
        counted: isRevenue && revenue < 0 ? 0 : 1,
        channel: e.channel,
        ts: e.timestamp,
        credits: null,
      },
    });
  }
  for (const part of chunks(hits)) {
    await trx
      .insertInto("analytics_goal_hits")
      .values(part)
      .onConflict((oc) => oc.columns(["project_id", "goal_key", "event_id"]).doNothing())
      .execute();
  }
  if (conversions.length === 0) return hits.length > 0;
  // A conversion is rolled up under its person's first-touch channel, so a late conversion of a
  // lead that first came from search is not credited to direct.
  const firstTouch = await firstTouchChannels(trx, project.id, [
    ...new Set(conversions.map((c) => c.row.person_key)),
  ]);
  for (const c of conversions) c.row.channel = firstTouch.get(c.row.person_key) ?? c.e.channel;
  for (const part of chunks(conversions.map((c) => c.row))) {
    await trx
      .insertInto("analytics_conversions")
      .values(part)
      .onConflict((oc) => oc.column("event_id").doNothing())
      .execute();
  }
  await creditConversions(
    trx,
    project.id,
    conversions.map((c) => c.row),
  );
  for (const { row } of conversions) {
    const d = deltas.get(project.id, row.ts, row.channel);
    d.conversions += row.counted;
    d.revenue += row.revenue;
  }
  return true;
}

async function firstTouchChannels(trx: Trx, projectId: string, keys: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const part of chunks(keys)) {
    const rows = await trx
      .selectFrom("analytics_touchpoints as t")
      .select(["t.person_key", "t.channel"])
      .where("t.project_id", "=", projectId)
      .where("t.person_key", "in", part)
      .where(
        "t.ts",
        "=",
        sql<number>`(select min(t2.ts) from analytics_touchpoints t2 where t2.project_id = t.project_id and t2.person_key = t.person_key)`,
      )
      .execute();
    for (const r of rows) if (!out.has(r.person_key)) out.set(r.person_key, r.channel);
  }
  return out;
}
