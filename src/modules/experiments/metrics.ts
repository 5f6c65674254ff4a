import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { AppError, validation } from "../../platform/errors.js";
import { listConversionGoals } from "../goals/service.js";
import type { MetricsInputT } from "./schema.js";
import type { ExperimentTable } from "./tables.js";

/** What an experiment measures beyond its primary conversion (docs/decisions/experiments.md). */
export interface ExperimentMetrics {
  secondary: string[];
  guardrails: { goal: string; worseWhen: "lower" | "higher" }[];
}

export function parseMetrics(row: Pick<ExperimentTable, "metrics">): ExperimentMetrics {
  return row.metrics ? (JSON.parse(row.metrics) as ExperimentMetrics) : { secondary: [], guardrails: [] };
}

/** Every goal an experiment counts beyond its primary conversion, with its role. */
export function extraGoalsOf(row: Pick<ExperimentTable, "metrics">) {
  const m = parseMetrics(row);
  return [
    ...m.secondary.map((goal) => ({ goal, role: "secondary" as const, worseWhen: "lower" as const })),
    ...m.guardrails.map((g) => ({ goal: g.goal, role: "guardrail" as const, worseWhen: g.worseWhen })),
  ];
}

interface MetricsRequest {
  conversionGoalIds?: string[] | null;
  metrics?: MetricsInputT;
}

/**
 * The columns a create or update sets from `conversionGoalIds` and `metrics`: `metrics.primary`
 * is the one-goal form of `conversionGoalIds` (both given and different is a 400), the lists
 * replace the stored ones when present, and every goal must be one of the project's. The primary
 * is fixed once the experiment has run (409), as its variants are.
 */
export async function resolveMetrics(
  db: DbOrTrx,
  project: ProjectRef,
  body: MetricsRequest,
  current?: ExperimentTable,
): Promise<Partial<Pick<ExperimentTable, "conversion_goal_ids" | "metrics">>> {
  const out: Partial<Pick<ExperimentTable, "conversion_goal_ids" | "metrics">> = {};
  const m = body.metrics;
  let primaryIds = body.conversionGoalIds;
  if (m?.primary !== undefined) {
    const asList = m.primary === null ? null : [m.primary];
    if (primaryIds !== undefined && JSON.stringify(primaryIds ?? null) !== JSON.stringify(asList))
      throw validation("body.metrics.primary: differs from body.conversionGoalIds (give one of them)");
    primaryIds = asList;
  }
  const known = new Set((await listConversionGoals(db, project)).map((g) => g.id));
  const unknown = (path: string, ids: string[]) => {
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) throw validation(`${path}: unknown conversion goal ${missing.join(", ")}`);
  };
  const stored = current?.conversion_goal_ids ?? null;
  const asStored = (ids: string[] | null | undefined) => (ids?.length ? JSON.stringify(ids) : null);
  if (primaryIds !== undefined && current?.has_run && asStored(primaryIds) !== stored)
    // Its counters would mix conversions of two goals; secondary and guardrail goals may change.
    throw new AppError("CONFLICT", "the primary goal cannot change once the experiment has run");
  if (primaryIds !== undefined) {
    unknown(m?.primary ? "body.metrics.primary" : "body.conversionGoalIds", primaryIds ?? []);
    out.conversion_goal_ids = asStored(primaryIds);
  }
  if (m?.secondary !== undefined || m?.guardrails !== undefined) {
    const before = current ? parseMetrics(current) : { secondary: [], guardrails: [] };
    const next: ExperimentMetrics = {
      secondary: m.secondary ?? before.secondary,
      guardrails:
        m.guardrails?.map((g) =>
          typeof g === "string"
            ? { goal: g, worseWhen: "lower" }
            : { goal: g.goal, worseWhen: g.worseWhen ?? "lower" },
        ) ?? before.guardrails,
    };
    unknown("body.metrics.secondary", next.secondary);
    unknown(
      "body.metrics.guardrails",
      next.guardrails.map((g) => g.goal),
    );
    const all = [...next.secondary, ...next.guardrails.map((g) => g.goal)];
    const repeated = all.find((g, i) => all.indexOf(g) !== i);
    if (repeated)
      throw validation(`body.metrics: goal ${repeated} is listed twice (secondary and guardrails)`);
    out.metrics = all.length > 0 ? JSON.stringify(next) : null;
  }
  return out;
}
