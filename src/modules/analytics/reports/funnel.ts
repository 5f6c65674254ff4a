import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import type { FunnelBreakdown } from "../ingest/dimensions.js";
import { type FunnelRow, type FunnelStep, funnelSql } from "../engine/funnel-sql.js";
import { EngineQuery } from "../engine/sql.js";
import type { Condition } from "../filters/filter.js";
import type { Period } from "./period.js";
import { DAY_MS } from "../ingest/rollup-store.js";

export type { FunnelStep } from "../engine/funnel-sql.js";

export interface FunnelStepResult {
  index: number;
  label: string;
  count: number;
  conversionFromPrevious: number;
  conversionFromStart: number;
  /** null for the first step, and when nobody reached the step */
  medianSecondsFromPrevious: number | null;
}

export interface FunnelAnswer {
  steps: FunnelStepResult[];
  windowDays: number;
  period: { from: string; to: string };
  breakdown?: { by: FunnelBreakdown; groups: { key: string; steps: FunnelStepResult[] }[] };
}

/** A funnel broken down shows the groups with the most entrants. */
const BREAKDOWN_GROUPS = 20;

/** The per-step figures of one group's row: `c<k>` people reaching step k, `m<k>` the median ms from step k-1. */
function stepResults(steps: FunnelStep[], row: FunnelRow): FunnelStepResult[] {
  const count = (k: number) => Number(row[`c${k}`] ?? 0);
  const first = count(0);
  return steps.map((s, k) => {
    const median = k === 0 ? null : row[`m${k}`];
    return {
      index: k,
      label: s.urlPattern ? `${s.eventType} ${s.urlPattern}` : s.eventType,
      count: count(k),
      conversionFromPrevious: k === 0 ? 1 : count(k - 1) > 0 ? count(k) / count(k - 1) : 0,
      conversionFromStart: first > 0 ? count(k) / first : 0,
      medianSecondsFromPrevious: median === null || median === undefined ? null : Number(median) / 1000,
    };
  });
}

/**
 * A funnel over the project's events (bots left out), on the analytics engine: people — a lead's
 * visitors together, else the visitor — entering with a first step inside the period, then each
 * step in order within `windowDays` of the entry (later steps may fall after the period). The
 * report filter by scope: every step's event meets the event conditions; people enter by a
 * first-step event whose session meets the session conditions (later steps count whatever their
 * origin, servers' events included); the person meets the person conditions. One query
 * (engine/funnel-sql.ts) answers the figures.
 */
export async function analyticsFunnel(
  deps: ReadDeps,
  project: ProjectRef,
  steps: FunnelStep[],
  windowDays: number,
  period: Period,
  breakdownBy: FunnelBreakdown | undefined,
  conds: Condition[],
): Promise<FunnelAnswer> {
  const q = new EngineQuery();
  const text = await funnelSql(q, deps, project, conds, {
    steps,
    windowMs: windowDays * DAY_MS,
    entryFrom: period.fromDay * DAY_MS,
    entryTo: (period.toDay + 1) * DAY_MS,
    breakdownBy,
    groups: BREAKDOWN_GROUPS,
  });
  const rows = await deps.engine.query<FunnelRow>(...q.bound(text));
  const overall = rows.find((r) => r.g === null)!;
  const answer: FunnelAnswer = {
    steps: stepResults(steps, overall),
    windowDays,
    period: { from: period.from, to: period.to },
  };
  if (!breakdownBy) return answer;
  const groups = rows
    .filter((r): r is FunnelRow & { g: string } => r.g !== null)
    .sort((a, b) => Number(b.c0) - Number(a.c0) || a.g.localeCompare(b.g))
    .slice(0, BREAKDOWN_GROUPS);
  answer.breakdown = {
    by: breakdownBy,
    groups: groups.map((r) => ({ key: r.g, steps: stepResults(steps, r) })),
  };
  return answer;
}
