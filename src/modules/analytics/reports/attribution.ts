import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { sql } from "kysely";
import type { GoalRef } from "./conversion-model.js";
import type { Credits } from "../ingest/credit-store.js";
import type { AttributionModel } from "../ingest/models.js";
import { DAY_MS } from "../ingest/rollup-store.js";
import { attributionSql } from "../engine/attribution-sql.js";
import type { AttributionBy } from "../schema.js";
import { selection } from "../engine/selection.js";
import { EngineQuery } from "../engine/sql.js";
import type { Condition } from "../filters/filter.js";
import type { Period } from "./period.js";
import "../tables.js";

export type { AttributionBy } from "../schema.js";

export interface AttributionRow {
  value: string;
  creditedConversions: number;
  revenue: number;
}

export interface AttributionSummary {
  goal: GoalRef | null;
  model: AttributionModel;
  /** what `rows` are keyed by */
  by: AttributionBy;
  channels: { channel: string; creditedConversions: number; revenue: number }[];
  rows: AttributionRow[];
}

/** The channels' answer, its rows the channels themselves (`by=channel`). */
export type ChannelAttribution = Omit<AttributionSummary, "by" | "rows">;

export const byChannel = (a: ChannelAttribution): AttributionSummary => ({
  ...a,
  by: "channel",
  rows: a.channels.map((c) => ({
    value: c.channel,
    creditedConversions: c.creditedConversions,
    revenue: c.revenue,
  })),
});

const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;

/**
 * Reads the attribution rollup (credits applied as conversions were recorded, see
 * credit-store.ts): cost grows with days × channels. Conversions are bucketed by their UTC day.
 */
export async function attributionSummary(
  db: DbOrTrx,
  project: ProjectRef,
  model: AttributionModel,
  period: Period,
  goal: GoalRef | null = null,
): Promise<ChannelAttribution> {
  if (goal) return { goal, model, channels: ordered(await goalCredits(db, project, model, period, goal)) };
  const rows = await db
    .selectFrom("analytics_attribution_daily")
    .select((eb) => [
      "channel",
      eb.fn.sum<number>("credited").as("credited"),
      eb.fn.sum<number>("revenue").as("revenue"),
    ])
    .where("project_id", "=", project.id)
    .where("model", "=", model)
    .where("day", ">=", period.fromDay)
    .where("day", "<=", period.toDay)
    .groupBy("channel")
    .execute();
  const channels = rows.map((r) => ({
    channel: r.channel,
    creditedConversions: Number(r.credited),
    revenue: Number(r.revenue),
  }));
  return { goal, model, channels: ordered(channels) };
}

type Credited = { channel: string; creditedConversions: number; revenue: number };

/** Rounded, without channels that held only zero-credit touches, most credited first. */
function ordered(channels: Credited[]): Credited[] {
  return orderedBy(channels, (c) => c.channel);
}

/** Rounded, without keys that held only zero-credit touches, most credited first. */
export function orderedBy<T extends { creditedConversions: number; revenue: number }>(
  rows: T[],
  key: (row: T) => string,
): T[] {
  return (
    rows
      .map((c) => ({ ...c, creditedConversions: round6(c.creditedConversions), revenue: round6(c.revenue) }))
      // A key that only held zero-credit touches (e.g. the middle of a last_touch path) is not listed.
      .filter((c) => c.creditedConversions !== 0 || c.revenue !== 0)
      .sort(
        (a, b) =>
          b.creditedConversions - a.creditedConversions ||
          b.revenue - a.revenue ||
          key(a).localeCompare(key(b)),
      )
  );
}

/**
 * The answer for `by`: the channels as given (the rollup's, or the filtered path's), and rows by
 * the channel (the same) or by a value of the touches' sessions from the engine.
 */
export async function attributionBy(
  deps: ReadDeps,
  project: ProjectRef,
  channels: ChannelAttribution,
  q: { by: AttributionBy; period: Period; conds: Condition[] },
): Promise<AttributionSummary> {
  if (q.by === "channel") return byChannel(channels);
  const rows = await engineAttribution(deps, project, { ...q, model: channels.model, goal: channels.goal });
  return { ...channels, by: q.by, rows };
}

export interface EngineAttributionQuery {
  model: AttributionModel;
  by: AttributionBy;
  period: Period;
  conds: Condition[];
  goal: GoalRef | null;
}

/**
 * Credit per value of the touches' sessions, computed from raw rows on the analytics engine (one
 * query, engine/attribution-sql.ts): the conversions the filter selects (as the channel path's),
 * each split over its touches now. With no filter and `by=channel` it equals the rollup, which
 * holds the same credits applied as conversions were recorded.
 */
export async function engineAttribution(
  deps: ReadDeps,
  project: ProjectRef,
  a: EngineAttributionQuery,
): Promise<AttributionRow[]> {
  const range = { from: a.period.fromDay * DAY_MS, to: (a.period.toDay + 1) * DAY_MS };
  const q = new EngineQuery();
  const withs = await selection(q, deps, project, a.conds, range, { goal: a.goal });
  const rows = await deps.engine.query<{ value: string; credited: number; revenue: number }>(
    ...q.bound(`${withs}${attributionSql(q, project.id, range.to, a.model, a.by)}`),
  );
  return orderedBy(
    rows.map((r) => ({
      value: r.value,
      creditedConversions: Number(r.credited),
      revenue: Number(r.revenue),
    })),
    (r) => r.value,
  );
}

/**
 * One goal's credits: each of its conversions in the period carries the credits applied when it
 * was recorded (or last re-credited), per model, so the same figures as the rollup, for its events.
 */
async function goalCredits(
  db: DbOrTrx,
  project: ProjectRef,
  model: AttributionModel,
  period: Period,
  goal: GoalRef,
): Promise<Credited[]> {
  const range = { from: period.fromDay * DAY_MS, to: (period.toDay + 1) * DAY_MS };
  const { rows } = await sql<{ credits: string | null; counted: number | string; revenue: number | string }>`
    select c.credits, c.counted, c.revenue from analytics_conversions c
    where c.project_id = ${project.id} and c.ts >= ${range.from} and c.ts < ${range.to}
    and exists (select 1 from analytics_goal_hits h where h.project_id = c.project_id
      and h.goal_key = ${goal.id} and h.event_id = c.event_id)`.execute(db);
  const by = new Map<string, Credited>();
  for (const r of rows) {
    const credits = r.credits ? (JSON.parse(r.credits) as Credits)[model] : undefined;
    for (const [channel, credit] of Object.entries(credits ?? {})) {
      const c = by.get(channel) ?? { channel, creditedConversions: 0, revenue: 0 };
      c.creditedConversions += credit * Number(r.counted);
      c.revenue += credit * Number(r.revenue);
      by.set(channel, c);
    }
  }
  return [...by.values()];
}
