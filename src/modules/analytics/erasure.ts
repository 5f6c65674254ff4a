import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import { UNATTRIBUTED_CHANNEL } from "../../platform/event-bus.js";
import { scheduleGoalRecompute } from "../goals/service.js";
import { applyAnalyticsDeltas } from "./ingest/delta-store.js";
import { BreakdownDeltas } from "./ingest/breakdown-store.js";
import {
  type AttributionDelta,
  type Credits,
  addAttributionCredits,
  conversionsOfPerson,
  creditConversions,
} from "./ingest/credit-store.js";
import { NONE_KEY, SESSION_DIMENSIONS } from "./ingest/dimensions.js";
import { personKey, sessionsOf, visitorsOfPeople } from "./people.js";
import { RollupDeltas, dayOf } from "./ingest/rollup-store.js";
import type { ConversionTable } from "./tables.js";
import { logEngineChange } from "./engine/changes.js";
import "./tables.js";

const CHUNK = 400;

export interface ErasedAnalytics {
  conversions: number;
  sessions: number;
}

/**
 * Removes a person from analytics' own records, in the erasure's transaction: conversions (their
 * counters and attribution credits taken back out of the rollups), goal hits of the erased events,
 * touchpoints and links. Visitor counts are sketches that cannot forget one visitor: the caller
 * rebuilds the affected weeks with `rebuildVisitorSketches` once the events are gone.
 * Returns the UTC days whose sketches hold the person (session starts; event days come from events).
 */
export async function eraseAnalyticsOf(
  trx: Trx,
  project: ProjectRef,
  person: { visitorIds: string[]; leadId?: string; eventIds: string[] },
  /** SQLite: the connection under `trx` (the breakdown store writes through it) */
  raw?: SQLite.Database,
): Promise<ErasedAnalytics & { days: number[] }> {
  const { visitorIds, leadId } = person;
  // Every process's analytics engine removes the person from its copy too (analytics/engine/).
  await logEngineChange(trx, project.id, { kind: "erase", subject: { visitors: visitorIds, lead: leadId } });
  // Rows of any of the visitors, or (a lead's erasure) keyed by the lead.
  const byPerson = sql<boolean>`(${
    visitorIds.length > 0 ? sql`visitor_id in (${sql.join(visitorIds)})` : sql`1 = 0`
  } ${leadId !== undefined ? sql`or lead_id = ${leadId}` : sql``})`;

  const conversions = await trx
    .selectFrom("analytics_conversions")
    .selectAll()
    .where("project_id", "=", project.id)
    .where(byPerson)
    .execute();
  await takeBackConversions(trx, project.id, conversions, raw);

  const sessions = await sessionsOf(trx, project.id, visitorIds);
  const days = new Set<number>();
  for (const list of sessions.values()) for (const s of list) days.add(dayOf(s.ts));
  const eventIds = [...new Set([...person.eventIds, ...conversions.map((c) => c.event_id)])];
  for (let i = 0; i < eventIds.length; i += CHUNK)
    await trx
      .deleteFrom("analytics_goal_hits")
      .where("project_id", "=", project.id)
      .where("event_id", "in", eventIds.slice(i, i + CHUNK))
      .execute();
  for (let i = 0; i < conversions.length; i += CHUNK)
    await trx
      .deleteFrom("analytics_conversions")
      .where(
        "event_id",
        "in",
        conversions.slice(i, i + CHUNK).map((c) => c.event_id),
      )
      .execute();
  // The lead a visitor belonged to (when only the visitor goes): its other conversions lose the
  // visitor's sessions from their touchpoints.
  const links = await trx
    .selectFrom("analytics_links")
    .select("lead_id")
    .distinct()
    .where("project_id", "=", project.id)
    .where(byPerson)
    .execute();
  for (let i = 0; i < visitorIds.length; i += CHUNK) {
    const chunk = visitorIds.slice(i, i + CHUNK);
    await trx
      .deleteFrom("analytics_touchpoints")
      .where("project_id", "=", project.id)
      .where("visitor_id", "in", chunk)
      .execute();
    await trx
      .deleteFrom("analytics_links")
      .where("project_id", "=", project.id)
      .where("visitor_id", "in", chunk)
      .execute();
    // No index leads there by visitor: a scan of the project's activity per 400 visitors.
    await trx
      .deleteFrom("analytics_activity")
      .where("project_id", "=", project.id)
      .where("visitor_id", "in", chunk)
      .execute();
  }
  if (leadId !== undefined)
    await trx
      .deleteFrom("analytics_links")
      .where("project_id", "=", project.id)
      .where("lead_id", "=", leadId)
      .execute();
  for (const { lead_id } of links) {
    if (lead_id === leadId) continue;
    await creditConversions(
      trx,
      project.id,
      await conversionsOfPerson(trx, project.id, personKey("", lead_id)),
    );
  }
  if (conversions.length > 0) await scheduleGoalRecompute(trx, project);
  return {
    conversions: conversions.length,
    sessions: [...sessions.values()].reduce((n, l) => n + l.length, 0),
    days: [...days],
  };
}

/**
 * Subtracts conversions from the rollups they were added to: the daily row of their first-touch
 * channel, each breakdown under the person's first session (as when recorded), their type, and the
 * attribution credits stored with them. Also a recount's, for conversions no goal holds any more.
 */
export async function takeBackConversions(
  trx: Trx,
  projectId: string,
  rows: ConversionTable[],
  raw: SQLite.Database | undefined,
): Promise<void> {
  if (rows.length === 0) return;
  const people = await visitorsOfPeople(trx, projectId, [...new Set(rows.map((r) => r.person_key))]);
  const sessions = await sessionsOf(trx, projectId, [...new Set([...people.values()].flat())]);
  const deltas = new RollupDeltas();
  const breakdowns = new BreakdownDeltas();
  const credits = new Map<string, AttributionDelta>();
  for (const r of rows) {
    const ts = Number(r.ts);
    const counted = Number(r.counted);
    const revenue = Number(r.revenue);
    const d = deltas.get(projectId, ts, r.channel);
    d.conversions -= counted;
    d.revenue -= revenue;
    const touches = (people.get(r.person_key) ?? []).flatMap((v) => sessions.get(v) ?? []);
    const first = touches.reduce<(typeof touches)[number] | undefined>(
      (a, t) => (!a || t.ts < a.ts ? t : a),
      undefined,
    );
    for (const dim of SESSION_DIMENSIONS) {
      const b = breakdowns.get(projectId, dim, ts, first?.dims[dim] ?? NONE_KEY);
      b.conversions -= counted;
      b.revenue -= revenue;
    }
    const byType = breakdowns.get(projectId, "event_type", ts, r.type);
    byType.conversions -= counted;
    byType.revenue -= revenue;
    const given = r.credits ? (JSON.parse(r.credits) as Credits) : {};
    for (const [model, chs] of Object.entries(given))
      for (const [channel, credit] of Object.entries(chs)) {
        const key = `${dayOf(ts)}|${model}|${channel}`;
        const c = credits.get(key) ?? { day: dayOf(ts), model, channel, credited: 0, revenue: 0 };
        c.credited -= credit * counted;
        c.revenue -= credit * revenue;
        credits.set(key, c);
      }
  }
  await applyAnalyticsDeltas(trx, deltas, breakdowns, { raw });
  await addAttributionCredits(trx, projectId, credits.values());
}

/** A lead leaves the daily count of leads it was added to when created. */
export async function takeBackLeadCreated(
  trx: Trx,
  project: ProjectRef,
  lead: { countedChannel: string | null; createdAt: number },
): Promise<void> {
  const day = dayOf(lead.createdAt);
  const channel = lead.countedChannel ?? UNATTRIBUTED_CHANNEL;
  // One row's count, not every shard's (PostgreSQL keeps a row per writing process).
  await trx
    .updateTable("analytics_daily")
    .set({ leads: sql`leads - 1` })
    .where("project_id", "=", project.id)
    .where("day", "=", day)
    .where("channel", "=", channel)
    .where("shard", "=", (eb) =>
      eb
        .selectFrom("analytics_daily")
        .select("shard")
        .where("project_id", "=", project.id)
        .where("day", "=", day)
        .where("channel", "=", channel)
        .where("leads", ">", 0)
        .orderBy("shard")
        .limit(1),
    )
    .execute();
  await scheduleGoalRecompute(trx, project);
}
