import type { ProjectRef } from "../../platform/auth/principal.js";
import { compileSchema, firstSchemaError } from "../../platform/validation.js";
import { validation } from "../../platform/errors.js";
import type { ReadDeps } from "../../platform/deps.js";
import {
  analyticsPaths,
  analyticsTrends,
  attributionReport,
  breakdownReport,
  funnelReport,
  parseFilter,
  planTrends,
  resolvePeriod,
  retentionReport,
  summaryReport,
  timeseriesReport,
} from "../analytics/service.js";
import { type InsightKind, type InsightResultT, SETTINGS, type SettingsOf } from "./schema.js";

/**
 * Runs a saved insight: the report function its endpoint calls, with the endpoint's defaults, so
 * an insight answers exactly what the report page showed when it was saved (tested per kind).
 */

const checks = Object.fromEntries(
  Object.entries(SETTINGS).map(([kind, schema]) => [kind, compileSchema(schema)]),
) as Record<InsightKind, ReturnType<typeof compileSchema>>;

/** 400 naming the field unless `settings` are valid settings of `kind` (what the schema cannot say too). */
export function checkSettings(kind: InsightKind, settings: unknown, where: string): void {
  const check = checks[kind];
  if (!check(settings)) throw validation(firstSchemaError(check, where).message);
  const s = settings as Record<string, unknown>;
  parseFilter(s.filter, `${where}.filter`);
  periodOf(kind, s as never, where);
  // A trend's formulas, measures and bucket count are checked beyond its schema, as its route does.
  if (kind === "trends") planTrends(settings as SettingsOf<"trends">);
}

type PeriodFields = { period?: string; from?: string; to?: string };

function periodOf(kind: InsightKind, s: PeriodFields, where: string) {
  if (kind === "attribution") return resolvePeriod({ period: s.period ?? "30d" }, Date.now(), where);
  if (kind === "paths")
    return resolvePeriod(
      { period: s.period ?? (s.from || s.to ? undefined : "7d"), from: s.from, to: s.to },
      Date.now(),
      where,
    );
  return resolvePeriod({ period: s.period, from: s.from, to: s.to }, Date.now(), where);
}

export async function runInsight(
  deps: ReadDeps,
  project: ProjectRef,
  kind: InsightKind,
  settings: unknown,
  where = "settings",
): Promise<InsightResultT> {
  const filter = parseFilter((settings as { filter?: unknown }).filter, `${where}.filter`);
  const goal = (settings as { goal?: string }).goal;
  const period = periodOf(kind, settings as PeriodFields, where);
  switch (kind) {
    case "summary":
      return { kind, result: await summaryReport(deps, project, period, filter, goal) };
    case "timeseries": {
      const s = settings as SettingsOf<"timeseries">;
      return {
        kind,
        result: await timeseriesReport(deps, project, period, s.interval ?? "day", filter, goal),
      };
    }
    case "breakdown": {
      const s = settings as SettingsOf<"breakdown">;
      return {
        kind,
        result: await breakdownReport(deps, project, s.by, period, s.limit ?? 10, filter, goal),
      };
    }
    case "funnel": {
      const s = settings as SettingsOf<"funnel">;
      const result = await funnelReport(
        deps,
        project,
        s.steps,
        s.windowDays ?? 14,
        period,
        s.breakdownBy,
        filter,
      );
      return { kind, result };
    }
    case "retention": {
      const s = settings as SettingsOf<"retention">;
      const result = await retentionReport(
        deps,
        project,
        period,
        s.interval ?? "week",
        s.startEvent ?? "pageview",
        s.returnEvent ?? null,
        filter,
      );
      return { kind, result };
    }
    case "attribution": {
      const s = settings as SettingsOf<"attribution">;
      return {
        kind,
        result: await attributionReport(
          deps,
          project,
          s.model ?? "position_based",
          period,
          filter,
          goal,
          s.by,
        ),
      };
    }
    case "paths": {
      const s = settings as SettingsOf<"paths">;
      const q = {
        start: { event: s.start.event ?? "pageview", page: s.start.page },
        direction: s.direction ?? "after",
        steps: s.steps ?? 3,
        limit: s.limit ?? 10,
      };
      return { kind, result: await analyticsPaths(deps, project, q, period, filter) };
    }
    case "trends":
      return {
        kind,
        result: await analyticsTrends(deps, project, planTrends(settings as SettingsOf<"trends">)),
      };
  }
}
