import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { activityPages } from "../events/service.js";
import { leadsOfVisitors, personKey } from "./people.js";
import type { Period } from "./period.js";
import { DAY_MS, dayOf } from "./rollup-store.js";
import { weekOf, weekStart } from "./sketches.js";

export type RetentionInterval = "day" | "week";

export interface Cohort {
  /** first day of the interval (YYYY-MM-DD) */
  start: string;
  size: number;
  /** returned[k]: people of the cohort active k intervals after it; returned[0] is the size */
  returned: number[];
}

interface Activity {
  /** the person's first start event, epoch ms */
  first: number;
  /** intervals with a return event */
  active: Set<number>;
}

const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * Retention cohorts over the period: a person (a lead's visitors together) joins the cohort of the
 * interval of their first `startEvent` ever, when it falls inside the period; `returned[k]` counts
 * those with a `returnEvent` (any event by default) k intervals later, up to the period's end.
 * Bots are left out. Reads events in one pass (events/service.ts `activityPages`).
 */
export async function analyticsRetention(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  interval: RetentionInterval,
  startEvent: string,
  returnEvent: string | null,
): Promise<{ interval: RetentionInterval; period: { from: string; to: string }; cohorts: Cohort[] }> {
  const slot = (ts: number): number => (interval === "day" ? dayOf(ts) : weekOf(dayOf(ts)));
  const from = period.fromDay * DAY_MS;
  const to = (period.toDay + 1) * DAY_MS;
  const byVisitor = new Map<string, Activity>();
  for await (const page of activityPages(db, project, {
    from,
    to,
    startType: startEvent,
    returnType: returnEvent,
  })) {
    for (const e of page) {
      if (e.visitor_id === "") continue;
      const ts = Number(e.ts);
      let a = byVisitor.get(e.visitor_id);
      if (!a) {
        a = { first: Number.POSITIVE_INFINITY, active: new Set() };
        byVisitor.set(e.visitor_id, a);
      }
      if (e.type === startEvent && ts < a.first) a.first = ts;
      if (ts >= from && (returnEvent === null || e.type === returnEvent)) a.active.add(slot(ts));
    }
  }
  const leads = await leadsOfVisitors(db, project.id, [...byVisitor.keys()]);
  const people = new Map<string, Activity>();
  for (const [visitorId, a] of byVisitor) {
    const key = personKey(visitorId, leads.get(visitorId));
    const p = people.get(key);
    if (!p) people.set(key, a);
    else {
      p.first = Math.min(p.first, a.first);
      for (const s of a.active) p.active.add(s);
    }
  }
  const firstSlot = slot(from);
  const lastSlot = slot(to - 1);
  const cohorts: Cohort[] = [];
  for (let s = firstSlot; s <= lastSlot; s++)
    cohorts.push({
      start: isoDay(interval === "day" ? s : weekStart(s)),
      size: 0,
      returned: Array.from({ length: lastSlot - s + 1 }, () => 0),
    });
  for (const p of people.values()) {
    if (p.first < from || p.first >= to) continue;
    const c = slot(p.first);
    const cohort = cohorts[c - firstSlot]!;
    cohort.size++;
    cohort.returned[0]!++;
    for (const s of p.active) if (s > c && s <= lastSlot) cohort.returned[s - c]!++;
  }
  return { interval, period: { from: period.from, to: period.to }, cohorts };
}
