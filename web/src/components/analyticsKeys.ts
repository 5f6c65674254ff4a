import type { PeriodQuery } from "./period";

/**
 * The keys of the /api/analytics reports, shared by the pages that ask for them (the overview's
 * summary and trend, funnels, retention, breakdowns, paths) under one prefix. The period and the
 * filter (its URL form) are part of each key: changing either asks again.
 */
export const analyticsKeys = {
  all: ["analytics"] as const,
  summary: (period: PeriodQuery, filter: string | undefined, goal?: string) =>
    ["analytics", "summary", period, filter, goal] as const,
  timeseries: (period: PeriodQuery, filter: string | undefined, goal?: string) =>
    ["analytics", "timeseries", period, filter, goal] as const,
  breakdown: (by: string, period: PeriodQuery, filter: string | undefined, goal?: string) =>
    ["analytics", "breakdown", by, period, filter, goal] as const,
  goals: (period: PeriodQuery, filter: string | undefined) => ["analytics", "goals", period, filter] as const,
  retention: (
    period: PeriodQuery,
    q: { interval: string; startEvent: string; returnEvent: string },
    filter: string | undefined,
  ) => ["analytics", "retention", period, q.interval, q.startEvent, q.returnEvent, filter] as const,
  /** A funnel by what shapes its answer: the steps as sent, the window, the breakdown. */
  funnel: (
    f: { steps: unknown; windowDays: number | undefined; breakdownBy: string | undefined },
    period: PeriodQuery,
    filter: string | undefined,
  ) => ["analytics", "funnel", f.steps, f.windowDays, f.breakdownBy, period, filter] as const,
  paths: (settings: unknown, period: PeriodQuery, filter: string | undefined) =>
    ["analytics", "paths", settings, period, filter] as const,
};
