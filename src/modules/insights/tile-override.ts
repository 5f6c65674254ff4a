import { parseFilterParam, resolvePeriod } from "../analytics/service.js";
import type { DashboardResultsQueryT, InsightKind } from "./schema.js";

/**
 * A dashboard-wide period and filter that every tile inherits: the period replaces each tile's
 * saved one while it is set, and the filter's conditions are added to each tile's own (all must
 * hold). Attribution knows only the last 7, 30 or 90 days, so a custom range leaves its tiles on
 * their saved period.
 */
export interface TileOverride {
  period?: "7d" | "30d" | "90d" | "custom";
  from?: string;
  to?: string;
  /** the conditions added to every tile's filter (as the filter bar keeps them) */
  filter?: unknown[];
}

/** The override a results query asks for, checked now (a 400 names the query's field), or undefined. */
export function overrideOf(q: DashboardResultsQueryT, now = Date.now()): TileOverride | undefined {
  const filter = q.filter === undefined ? [] : parseFilterParam(q.filter, "query.filter");
  const hasPeriod = q.period !== undefined || q.from !== undefined || q.to !== undefined;
  if (hasPeriod) resolvePeriod({ period: q.period, from: q.from, to: q.to }, now, "query");
  if (!hasPeriod && filter.length === 0) return undefined;
  const out: TileOverride = {};
  if (hasPeriod) {
    out.period = q.period ?? "custom";
    if (out.period === "custom") {
      out.from = q.from;
      out.to = q.to;
    }
  }
  if (filter.length > 0) out.filter = JSON.parse(q.filter!) as unknown[];
  return out;
}

/** A tile's settings with the override applied. */
export function applyOverride(kind: InsightKind, settings: unknown, o: TileOverride | undefined): unknown {
  if (!o) return settings;
  const s = { ...(settings as Record<string, unknown>) };
  if (o.period && !(kind === "attribution" && o.period === "custom")) {
    delete s.from;
    delete s.to;
    s.period = o.period;
    if (o.period === "custom") {
      s.from = o.from;
      s.to = o.to;
    }
  }
  if (o.filter) s.filter = [...((s.filter as unknown[] | undefined) ?? []), ...o.filter];
  return s;
}
