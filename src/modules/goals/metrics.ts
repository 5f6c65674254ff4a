import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Db } from "../../platform/db/index.js";
import { validation } from "../../platform/errors.js";
import type { JobRegistry } from "../../platform/jobs.js";
import type { GoalTable } from "./tables.js";
import type { ServiceDeps } from "../../platform/deps.js";

/** Supplies a metric's value for a project over a range (epoch ms); undefined when it does not know the metric. */
export type GoalMetricProvider = (
  db: Db,
  project: ProjectRef,
  metric: string,
  range: { from: number; to: number },
) => Promise<number | undefined>;

// Providers are per app (keyed by its job registry, which jobs also see), so test apps stay apart.
const providers = new WeakMap<JobRegistry, GoalMetricProvider[]>();
const builtIns = new WeakMap<JobRegistry, string[]>();

/**
 * Plugs in a source of goal metrics with the built-in metric names it measures (a goal may name
 * one of these, or one of its project's conversion goals, which the analytics provider measures).
 */
export function registerGoalMetricProvider(
  deps: ServiceDeps,
  provider: GoalMetricProvider,
  metrics: readonly string[],
): void {
  providers.set(deps.jobs, [...(providers.get(deps.jobs) ?? []), provider]);
  builtIns.set(deps.jobs, [...(builtIns.get(deps.jobs) ?? []), ...metrics]);
}

/** The goal's current value from the first provider that knows its metric; unchanged when none does. */
export async function measure(
  registry: JobRegistry,
  db: Db,
  project: ProjectRef,
  goal: GoalTable,
): Promise<number> {
  const range = { from: Date.parse(goal.created_at), to: Date.now() };
  for (const p of providers.get(registry) ?? []) {
    const v = await p(db, project, goal.metric, range);
    if (v !== undefined && Number.isFinite(v)) return v;
  }
  return goal.current;
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
const MAX_LISTED = 50;

/**
 * A metric nothing measures would stay at 0 forever: refused, listing what is accepted. Built-ins
 * match exactly; conversion goal names as the analytics provider matches them (case and
 * surrounding spaces aside).
 */
export function checkMetric(registry: JobRegistry, metric: string, conversionGoalNames: string[]): void {
  const known = builtIns.get(registry) ?? [];
  if (known.includes(metric)) return;
  const names = conversionGoalNames;
  if (names.some((n) => sameName(n, metric))) return;
  const listed = names.slice(0, MAX_LISTED).join(", ");
  const more = names.length > MAX_LISTED ? ` and ${names.length - MAX_LISTED} more` : "";
  throw validation(
    `body.metric ${JSON.stringify(metric)} is not a metric: use a built-in metric (${known.join(", ")}) ` +
      (names.length
        ? `or the name of one of the project's conversion goals (${listed}${more})`
        : "or the name of a conversion goal (this project has no conversion goals)"),
  );
}
