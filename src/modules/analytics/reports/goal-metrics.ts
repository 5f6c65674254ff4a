import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import { listConversionGoals } from "../../goals/service.js";
import { convertersIn, periodVisitorIds, populationRates } from "./conversion-model.js";
import { rates } from "./converted.js";
import { countUnion } from "../ingest/hll.js";
import { SIGNUP_EVENT_TYPES, SIGNUP_KEY } from "../ingest/processor.js";
import { ALL_CHANNELS, dayOf } from "../ingest/rollup-store.js";
import { sketchesFor } from "../ingest/sketches.js";
import "../tables.js";

type Range = { from: number; to: number };

/** Visitors over whole UTC days touching the range (the rollup's grain). */
async function visitors(db: DbOrTrx, project: ProjectRef, range: Range): Promise<number> {
  const rows = await sketchesFor(db, project.id, dayOf(range.from), dayOf(range.to), ALL_CHANNELS);
  return countUnion(rows.map((r) => r.visitors_sketch));
}

async function leads(db: DbOrTrx, project: ProjectRef, range: Range): Promise<number> {
  const row = await db
    .selectFrom("analytics_daily")
    .select((eb) => eb.fn.sum<number>("leads").as("n"))
    .where("project_id", "=", project.id)
    .where("day", ">=", dayOf(range.from))
    .where("day", "<=", dayOf(range.to))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

async function conversions(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
): Promise<{ count: number; revenue: number }> {
  const row = await db
    .selectFrom("analytics_conversions")
    .select((eb) => [eb.fn.sum<number>("counted").as("n"), eb.fn.sum<number>("revenue").as("r")])
    .where("project_id", "=", project.id)
    .where("ts", ">=", range.from)
    .where("ts", "<=", range.to)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), revenue: Number(row?.r ?? 0) };
}

async function hits(db: DbOrTrx, project: ProjectRef, key: string, range: Range): Promise<number> {
  const row = await db
    .selectFrom("analytics_goal_hits")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "=", project.id)
    .where("goal_key", "=", key)
    .where("ts", ">=", range.from)
    .where("ts", "<=", range.to)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Built-in goal metrics analytics measures (conversion goal names come on top). */
export const ANALYTICS_GOAL_METRICS = [
  "visitors",
  "leads",
  "conversions",
  "revenue",
  "conversion_rate",
  "signups",
] as const;

/**
 * The goal metrics analytics knows: visitors, leads, conversions, revenue, conversion_rate (per
 * person), signups (events named signup/sign_up or a conversion goal of that name), and any
 * conversion goal by its name (case-insensitive). Unknown metrics are left to other providers.
 */
export async function goalMetric(
  db: DbOrTrx,
  project: ProjectRef,
  metric: string,
  range: Range,
): Promise<number | undefined> {
  const m = metric.trim().toLowerCase();
  switch (m) {
    case "visitors":
      return visitors(db, project, range);
    case "leads":
      return leads(db, project, range);
    case "conversions":
      return (await conversions(db, project, range)).count;
    case "revenue":
      return (await conversions(db, project, range)).revenue;
    case "conversion_rate": {
      // As the summary's conversionRate: the visitors who converted ÷ the visitors.
      const v = await visitors(db, project, range);
      const within = { from: range.from, to: range.to + 1 };
      const population = await periodVisitorIds(db, project, within);
      const people = await populationRates(
        db,
        project,
        population,
        await convertersIn(db, project, within, null),
      );
      return rates(v, people.converted, 0).conversionRate;
    }
  }
  if (SIGNUP_EVENT_TYPES.has(m) || m === "signups") return hits(db, project, SIGNUP_KEY, range);
  const goal = (await listConversionGoals(db, project)).find((g) => g.name.trim().toLowerCase() === m);
  return goal ? hits(db, project, goal.id, range) : undefined;
}
