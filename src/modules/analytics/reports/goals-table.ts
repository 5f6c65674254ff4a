import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { listConversionGoals } from "../../goals/service.js";
import { Population, convertersIn, goalConversions, periodVisitorIds, rateOf } from "./conversion-model.js";
import type { Condition } from "../filters/filter.js";
import type { VisitorsEstimate } from "../ingest/hll.js";
import type { Period } from "./period.js";
import { summaryReport } from "./reports.js";
import { DAY_MS } from "../ingest/rollup-store.js";

/**
 * Every conversion goal's figures over the same visitors, as Plausible's goal list: what a team
 * with several goals reads instead of one blended rate. The visitors are the summary's (with the
 * filter, the summary's filtered population); each goal's converted visitors are those of them
 * whose person matched it in the period.
 */
export async function goalsTable(deps: ReadDeps, project: ProjectRef, period: Period, conds: Condition[]) {
  const { db } = deps;
  const goals = await listConversionGoals(db, project);
  const range = { from: period.fromDay * DAY_MS, to: (period.toDay + 1) * DAY_MS };
  // Unfiltered: the period's visitors; filtered: the filtered summary of each goal says the same.
  if (conds.length > 0) {
    const rows = [];
    let head: Awaited<ReturnType<typeof summaryReport>> | undefined;
    for (const g of goals) {
      const s = await summaryReport(deps, project, period, conds, g.id);
      head ??= s;
      rows.push({
        goalId: g.id,
        name: g.name,
        conversions: s.conversions,
        convertedVisitors: s.convertedVisitors,
        conversionRate: s.conversionRate,
        revenue: s.revenue,
      });
    }
    head ??= await summaryReport(deps, project, period, conds);
    return answer(head.visitors, head.visitorsEstimate, rows, period);
  }
  const head = await summaryReport(deps, project, period, []);
  const population = await Population.of(db, project, await periodVisitorIds(db, project, range));
  const rows = [];
  for (const g of goals) {
    const goal = { id: g.id, name: g.name };
    const counted = await goalConversions(db, project, range, goal);
    const converted = population.converted(await convertersIn(db, project, range, goal));
    rows.push({
      goalId: g.id,
      name: g.name,
      conversions: counted.conversions,
      convertedVisitors: converted,
      conversionRate: rateOf(converted, head.visitors),
      revenue: Math.round(counted.revenue * 1e6) / 1e6,
    });
  }
  return answer(head.visitors, head.visitorsEstimate, rows, period);
}

function answer(
  visitors: number,
  visitorsEstimate: VisitorsEstimate | undefined,
  goals: {
    goalId: string;
    name: string;
    conversions: number;
    convertedVisitors: number;
    conversionRate: number;
    revenue: number;
  }[],
  period: Period,
) {
  goals.sort(
    (a, b) =>
      b.convertedVisitors - a.convertedVisitors ||
      b.conversions - a.conversions ||
      a.name.localeCompare(b.name),
  );
  return {
    visitors,
    ...(visitorsEstimate ? { visitorsEstimate } : {}),
    goals,
    period: { from: period.from, to: period.to },
  };
}
