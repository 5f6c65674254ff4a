import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { validation } from "../../platform/errors.js";
import { parseStart } from "./pace.js";
import type { GoalTable } from "./tables.js";
import { type ServiceDeps, appSlot, stateOf } from "../../platform/deps.js";

/** Supplies a metric's value for a project over a range (epoch ms); undefined when it does not know the metric. */
export type GoalMetricProvider = (
  db: DbOrTrx,
  project: ProjectRef,
  metric: string,
  range: { from: number; to: number },
) => Promise<number | undefined>;

// Providers are per app, so test apps stay apart.
const METRICS = appSlot("goals.metrics", () => ({
  providers: [] as GoalMetricProvider[],
  builtIns: [] as string[],
}));

/**
 * Plugs in a source of goal metrics with the built-in metric names it measures (a goal may name
 * one of these, or one of its project's conversion goals, which the analytics provider measures).
 */
export function registerGoalMetricProvider(
  deps: ServiceDeps,
  provider: GoalMetricProvider,
  metrics: readonly string[],
): void {
  const m = stateOf(deps, METRICS);
  m.providers.push(provider);
  m.builtIns.push(...metrics);
}

/** The goal's current value from the first provider that knows its metric; unchanged when none does. */
export async function measure(deps: ServiceDeps, project: ProjectRef, goal: GoalTable): Promise<number> {
  const range = { from: parseStart(goal.start_date) ?? Date.parse(goal.created_at), to: Date.now() };
  for (const p of stateOf(deps, METRICS).providers) {
    const v = await p(deps.db, project, goal.metric, range);
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
export function checkMetric(deps: ServiceDeps, metric: string, conversionGoalNames: string[]): void {
  const known = stateOf(deps, METRICS).builtIns;
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
