import type { Trx } from "../../../platform/db/index.js";
import { visitorEventPages } from "../../event-store/service.js";
import { NONE_KEY, SESSION_DIMENSIONS } from "./dimensions.js";
import { VisitorSketch, visitorHash } from "./hll.js";
import { ALL_CHANNELS, DAY_MS, dayOf } from "./rollup-store.js";
import { weekOf, weekStart } from "./sketches.js";
import { writeRebuiltSketches } from "./sketch-store.js";
import "../tables.js";

/**
 * Rebuilds every visitor sketch of the weeks holding `days` (daily and weekly rollups, breakdowns)
 * from the events and session starts that remain: one pass over those weeks' events.
 */
export async function rebuildVisitorSketches(trx: Trx, projectId: string, days: number[]): Promise<void> {
  const weeks = [...new Set(days.map(weekOf))].sort((a, b) => a - b);
  if (weeks.length === 0) return;
  const inWeeks = new Set(weeks);
  const allDays = weeks.flatMap((w) => Array.from({ length: 7 }, (_, i) => weekStart(w) + i));
  const daily = new SketchSet();
  const weekly = new SketchSet();
  const bdDaily = new SketchSet();
  const bdWeekly = new SketchSet();
  const range = { from: weekStart(weeks[0]!) * DAY_MS, to: weekStart(weeks.at(-1)! + 1) * DAY_MS };
  for await (const page of visitorEventPages(trx, projectId, range))
    for (const e of page) {
      const day = dayOf(Number(e.ts));
      const week = weekOf(day);
      if (!inWeeks.has(week)) continue;
      const h = visitorHash(e.visitor_id);
      if (!Number(e.is_server))
        for (const channel of [e.channel, ALL_CHANNELS]) {
          daily.add(`${day}`, channel, h);
          weekly.add(`${week}`, channel, h);
        }
      bdDaily.add(`event_type\u0000${day}`, e.type, h);
      bdWeekly.add(`event_type\u0000${week}`, e.type, h);
    }
  // Session starts count under their values; a touchpoint with no values did not start in a seen batch.
  const starts = await trx
    .selectFrom("analytics_touchpoints")
    .select(["visitor_id", "ts", ...SESSION_DIMENSIONS])
    .where("project_id", "=", projectId)
    .where("ts", ">=", range.from)
    .where("ts", "<", range.to)
    .execute();
  for (const s of starts) {
    if (SESSION_DIMENSIONS.every((d) => s[d] === null)) continue;
    const day = dayOf(Number(s.ts));
    const week = weekOf(day);
    if (!inWeeks.has(week)) continue;
    const h = visitorHash(s.visitor_id);
    for (const d of SESSION_DIMENSIONS) {
      bdDaily.add(`${d}\u0000${day}`, s[d] ?? NONE_KEY, h);
      bdWeekly.add(`${d}\u0000${week}`, s[d] ?? NONE_KEY, h);
    }
  }
  await writeRebuiltSketches(trx, projectId, daily, weekly, bdDaily, bdWeekly, allDays, weeks);
}

/** Sketches by an outer key (day, week, or dimension + day/week) and an inner one (channel or value). */
class SketchSet {
  readonly map = new Map<string, Map<string, VisitorSketch>>();
  add(outer: string, inner: string, hash: number): void {
    let m = this.map.get(outer);
    if (!m) {
      m = new Map();
      this.map.set(outer, m);
    }
    let s = m.get(inner);
    if (!s) {
      s = new VisitorSketch();
      m.set(inner, s);
    }
    s.add(hash);
  }
  *rows(): Generator<[string, string, string]> {
    for (const [outer, m] of this.map) for (const [inner, s] of m) yield [outer, inner, s.serialize()];
  }
}
