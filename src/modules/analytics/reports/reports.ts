import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import type { RawBuilder } from "kysely";
import { type AttributionBy, attributionBy, attributionSummary } from "./attribution.js";
import { resolveGoal } from "./conversion-model.js";
import { analyticsBreakdown } from "./breakdown.js";
import type { BreakdownDimension, FunnelBreakdown } from "../ingest/dimensions.js";
import { type Condition, hasLevel } from "../filters/filter.js";
import { eventRowCondition } from "./event-filter-store.js";
import {
  filteredAttribution,
  filteredBreakdown,
  filteredSummary,
  filteredTimeseries,
  matchingPeople,
} from "./filtered-reports.js";
import { type FunnelStep, analyticsFunnel } from "./funnel.js";
import type { AttributionModel } from "../ingest/models.js";
import { personTest, visitorTest } from "../filters/person-test.js";
import type { Period } from "./period.js";
import { type RetentionInterval, analyticsRetention } from "./retention.js";
import { DAY_MS } from "../ingest/rollup-store.js";
import { analyticsSummary } from "./summary.js";
import { type Interval, analyticsTimeseries } from "./timeseries.js";

/**
 * Each report with the filter: no filter reads the rollups as before; a filter on channels alone
 * (`channel is …`) reads the channel rollups too; anything else is answered from raw data
 * (filtered-reports.ts).
 */

/** The channels of a filter that is one `channel is …` condition, else null. */
export function rollupChannels(conds: Condition[]): Set<string> | null {
  if (conds.length !== 1) return null;
  const c = conds[0]!;
  if (c.field !== "channel" || c.op !== "is" || c.absent) return null;
  return new Set(c.values);
}

export async function summaryReport(
  deps: ReadDeps,
  project: ProjectRef,
  period: Period,
  conds: Condition[],
  goalParam?: string,
) {
  const { db } = deps;
  const goal = await resolveGoal(db, project, goalParam);
  if (conds.length === 0) return analyticsSummary(db, project, period, undefined, goal);
  const only = rollupChannels(conds);
  if (only) return analyticsSummary(db, project, period, only, goal);
  return filteredSummary(deps, project, period, conds, goal);
}

export async function timeseriesReport(
  deps: ReadDeps,
  project: ProjectRef,
  period: Period,
  interval: Interval,
  conds: Condition[],
  goalParam?: string,
) {
  const { db } = deps;
  const goal = await resolveGoal(db, project, goalParam);
  if (conds.length === 0) return analyticsTimeseries(db, project, period, interval, undefined, goal);
  const only = rollupChannels(conds);
  if (only) return analyticsTimeseries(db, project, period, interval, only, goal);
  return filteredTimeseries(deps, project, period, interval, conds, goal);
}

export async function breakdownReport(
  deps: ReadDeps,
  project: ProjectRef,
  by: BreakdownDimension,
  period: Period,
  limit: number,
  conds: Condition[],
  goalParam?: string,
) {
  const { db } = deps;
  const goal = await resolveGoal(db, project, goalParam);
  if (conds.length === 0) return analyticsBreakdown(db, project, by, period, limit, goal);
  return filteredBreakdown(deps, project, by, period, limit, conds, goal);
}

export async function attributionReport(
  deps: ReadDeps,
  project: ProjectRef,
  model: AttributionModel,
  period: Period,
  conds: Condition[],
  goalParam?: string,
  by: AttributionBy = "channel",
) {
  const { db } = deps;
  const goal = await resolveGoal(db, project, goalParam);
  const channels =
    conds.length === 0
      ? await attributionSummary(db, project, model, period, goal)
      : await filteredAttribution(deps, project, model, period, conds, goal);
  return attributionBy(deps, project, channels, { by, period, conds });
}

export async function funnelReport(
  deps: ReadDeps,
  project: ProjectRef,
  steps: FunnelStep[],
  windowDays: number,
  period: Period,
  breakdownBy: FunnelBreakdown | undefined,
  conds: Condition[],
) {
  return analyticsFunnel(deps, project, steps, windowDays, period, breakdownBy, conds);
}

export async function retentionReport(
  deps: ReadDeps,
  project: ProjectRef,
  period: Period,
  interval: RetentionInterval,
  startEvent: string,
  returnEvent: string | null,
  conds: Condition[],
) {
  return analyticsRetention(deps, project, period, interval, startEvent, returnEvent, conds);
}

/**
 * The filter as a test of people (person keys `l:<lead>`, `v:<visitor>`); undefined without a
 * filter. A person is kept when it has a selected visit or conversion in the period (one engine
 * query); with person conditions alone, when it meets them (cohorts' members from the engine).
 */
export async function peopleMatch(
  deps: ReadDeps,
  project: ProjectRef,
  period: { fromDay: number; toDay: number },
  conds: Condition[],
): Promise<((personKey: string) => boolean) | undefined> {
  if (conds.length === 0) return undefined;
  if (!hasLevel(conds, "session") && !hasLevel(conds, "event")) {
    const person = (await personTest(deps, project, conds))!;
    return (key) => person(key, key.startsWith("l:") ? key.slice(2) : null);
  }
  const range = { from: period.fromDay * DAY_MS, to: (period.toDay + 1) * DAY_MS };
  const people = await matchingPeople(deps, project, conds, range);
  return (key) => people.has(key);
}

/**
 * The filter on stored events one by one (the export): the event's own conditions and session in
 * SQL, the person's in `keep`. Each event is judged alone, by its own session.
 */
export async function eventFilter(
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
): Promise<{ where?: RawBuilder<boolean>; keep?: (visitorId: string) => boolean }> {
  if (conds.length === 0) return {};
  const keep = (await visitorTest(deps, project, conds)) ?? undefined;
  const where = eventRowCondition(deps.db, conds) ?? undefined;
  return { where, keep };
}
