import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { Trx } from "../../../platform/db/index.js";
import type { ServiceDeps } from "../../../platform/deps.js";
import { type ScannedEvent, lockStoredEvents } from "../../event-store/service.js";
import { type ConversionGoalT, matchesConversionGoal, parsedGoal } from "../../goals/service.js";
import { applyAnalyticsDeltas, rawConnection } from "./delta-store.js";
import { BreakdownDeltas } from "./breakdown-store.js";
import { type ConvertingEvent, conversionRows, countConversions } from "./conversion-record.js";
import { creditConversions } from "./credit-store.js";
import { takeBackConversions } from "../erasure.js";
import { SIGNUP_EVENT_TYPES, SIGNUP_KEY } from "./processor.js";
import { RollupDeltas } from "./rollup-store.js";
import type { ConversionTable } from "../tables.js";
import "../tables.js";

/**
 * One page of a conversion goal's recount (goal-recompute.ts): stored events brought to what the
 * goal and the project's other goals say, every write keyed on the event id and every counter
 * moved only for a row this page inserted or deleted.
 */

const CHUNK = 400;

const isSignupGoal = (g: ConversionGoalT) => SIGNUP_EVENT_TYPES.has(g.name.toLowerCase());

type Scanned = ConvertingEvent & { url: string; received_at: number };

function toScanned(r: ScannedEvent): Scanned {
  return {
    id: r.id,
    visitorId: r.visitor_id,
    type: r.type,
    url: r.url,
    data: JSON.parse(r.data) as Record<string, unknown>,
    channel: r.channel,
    timestamp: Number(r.ts),
    received_at: Number(r.received_at),
  };
}

/**
 * Brings a page of stored events to what the goal (null once deleted) and the project's other
 * goals say.
 */
export async function reconcile(
  trx: Trx,
  deps: ServiceDeps,
  project: ProjectRef,
  goalId: string,
  goal: ConversionGoalT | null,
  goals: ConversionGoalT[],
  rows: ScannedEvent[],
): Promise<void> {
  if (rows.length === 0) return;
  const events = rows.map(toScanned);
  // Parsed once for the page's events.
  const parsed = goal === null ? null : parsedGoal(goal);
  const matched = new Set(
    events.filter((e) => parsed !== null && matchesConversionGoal(parsed, e)).map((e) => e.id),
  );
  const others = goals.filter((g) => g.id !== goalId).map(parsedGoal);
  const signup = (e: Scanned) =>
    SIGNUP_EVENT_TYPES.has(e.type) ||
    (matched.has(e.id) && goal !== null && isSignupGoal(goal)) ||
    others.some((g) => isSignupGoal(g) && matchesConversionGoal(g, e));
  // Rows are written only about events still stored (an erasure may be deleting one right now).
  const stored = await lockStoredEvents(
    trx,
    events.filter((e) => matched.has(e.id) || signup(e)),
  );
  const adds = (e: Scanned) => stored.has(e.id);

  await setHits(
    trx,
    project,
    goalId,
    events.filter((e) => matched.has(e.id) && adds(e)),
    events.filter((e) => !matched.has(e.id)),
  );
  await setHits(
    trx,
    project,
    SIGNUP_KEY,
    events.filter((e) => signup(e) && adds(e)),
    events.filter((e) => !signup(e)),
  );
  await addConversions(
    trx,
    deps,
    project,
    goalId,
    events.filter((e) => matched.has(e.id) && adds(e)),
  );
  // An event stays a conversion while any goal matches it, and a `$revenue` event always.
  const unheld = events.filter(
    (e) => !matched.has(e.id) && e.type !== "$revenue" && !others.some((g) => matchesConversionGoal(g, e)),
  );
  await removeConversions(trx, deps, project, unheld);
}

/** The goal's hits: on `add` (kept when there), off `remove`. */
async function setHits(trx: Trx, project: ProjectRef, key: string, add: Scanned[], remove: Scanned[]) {
  for (let i = 0; i < add.length; i += CHUNK)
    await trx
      .insertInto("analytics_goal_hits")
      .values(
        add.slice(i, i + CHUNK).map((e) => ({
          project_id: project.id,
          goal_key: key,
          event_id: e.id,
          ts: e.timestamp,
        })),
      )
      .onConflict((oc) => oc.columns(["project_id", "goal_key", "event_id"]).doNothing())
      .execute();
  for (let i = 0; i < remove.length; i += CHUNK)
    await trx
      .deleteFrom("analytics_goal_hits")
      .where("project_id", "=", project.id)
      .where("goal_key", "=", key)
      .where(
        "event_id",
        "in",
        remove.slice(i, i + CHUNK).map((e) => e.id),
      )
      .execute();
}

/**
 * A conversion row for each event that has none yet, with its counters: only rows this insert
 * made count, so an event the pipeline (or an earlier run) already recorded counts once.
 */
async function addConversions(
  trx: Trx,
  deps: ServiceDeps,
  project: ProjectRef,
  goalId: string,
  events: Scanned[],
): Promise<void> {
  if (events.length === 0) return;
  const have = new Set<string>();
  for (let i = 0; i < events.length; i += CHUNK) {
    const rows = await trx
      .selectFrom("analytics_conversions")
      .select("event_id")
      .where(
        "event_id",
        "in",
        events.slice(i, i + CHUNK).map((e) => e.id),
      )
      .execute();
    for (const r of rows) have.add(r.event_id);
  }
  const missing = events.filter((e) => !have.has(e.id));
  if (missing.length === 0) return;
  const { rows, firstDims, touches } = await conversionRows(
    trx,
    project,
    missing.map((e) => ({ e, goalId, isRevenue: e.type === "$revenue" })),
  );
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += CHUNK) {
    const made = await trx
      .insertInto("analytics_conversions")
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.column("event_id").doNothing())
      .returning("event_id")
      .execute();
    for (const r of made) inserted.add(r.event_id);
  }
  const counted = rows.filter((r) => inserted.has(r.event_id));
  // Credited now, from the person's sessions, and stored on the rows (as a link re-credits them).
  await creditConversions(trx, project.id, counted, true, touches);
  const deltas = new RollupDeltas();
  const breakdowns = new BreakdownDeltas();
  countConversions(project.id, counted, firstDims, deltas, breakdowns);
  await applyAnalyticsDeltas(trx, deltas, breakdowns, { raw: rawConnection(deps.dbHandle) });
}

/** Deletes these events' conversion rows, if any, and takes what was counted for them back out. */
async function removeConversions(trx: Trx, deps: ServiceDeps, project: ProjectRef, events: Scanned[]) {
  const gone: ConversionTable[] = [];
  for (let i = 0; i < events.length; i += CHUNK)
    gone.push(
      ...(await trx
        .deleteFrom("analytics_conversions")
        // By the key alone: with the project too, SQLite may read the project's rows by its index.
        .where(
          "event_id",
          "in",
          events.slice(i, i + CHUNK).map((e) => e.id),
        )
        .returningAll()
        .execute()),
    );
  await takeBackConversions(trx, project.id, gone, rawConnection(deps.dbHandle));
}
