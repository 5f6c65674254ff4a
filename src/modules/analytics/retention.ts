import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { linksOfProject } from "./people.js";
import type { Period } from "./period.js";
import { DAY_MS } from "./rollup-store.js";
import { weekOf, weekStart } from "./sketches.js";

export type RetentionInterval = "day" | "week";

export interface Cohort {
  /** first day of the interval (YYYY-MM-DD) */
  start: string;
  size: number;
  /** returned[k]: people of the cohort active k intervals after it; returned[0] is the size */
  returned: number[];
}

/**
 * Per visitor: the day of its first start event and a bit per active interval of the period, in
 * flat arrays. A million visitors would otherwise be a million objects and sets, and their garbage
 * collection cost more than reading the rows.
 */
class VisitorSlots {
  readonly ids = new Map<string, number>();
  readonly first: number[] = [];
  private bits: Uint32Array;

  constructor(private readonly words: number) {
    this.bits = new Uint32Array(words * 4096);
  }

  indexOf(visitorId: string): number {
    let i = this.ids.get(visitorId);
    if (i !== undefined) return i;
    i = this.first.length;
    this.ids.set(visitorId, i);
    this.first.push(Number.POSITIVE_INFINITY);
    if ((i + 1) * this.words > this.bits.length) {
      const grown = new Uint32Array(this.bits.length * 2);
      grown.set(this.bits);
      this.bits = grown;
    }
    return i;
  }

  mark(i: number, slot: number): void {
    this.bits[i * this.words + (slot >>> 5)]! |= 1 << (slot & 31);
  }

  /** Visitor `from`'s first day and intervals join visitor `into`'s (a lead's visitors). */
  merge(into: number, from: number): void {
    this.first[into] = Math.min(this.first[into]!, this.first[from]!);
    for (let w = 0; w < this.words; w++)
      this.bits[into * this.words + w]! |= this.bits[from * this.words + w]!;
  }

  /** The marked intervals of visitor `i` after `after`, in order. */
  *marked(i: number, after: number): Generator<number> {
    for (let w = after >>> 5; w < this.words; w++) {
      let word = this.bits[i * this.words + w]!;
      while (word !== 0) {
        const bit = 31 - Math.clz32(word & -word);
        word &= word - 1;
        const slot = w * 32 + bit;
        if (slot > after) yield slot;
      }
    }
  }
}

const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * Retention cohorts over the period: a person (a lead's visitors together) joins the cohort of the
 * interval of their first `startEvent` ever, when it falls inside the period; `returned[k]` counts
 * those with a `returnEvent` (any event by default) k intervals later, up to the period's end.
 * Bots are left out. Reads who did what on which day (`analytics_activity`, written at ingest),
 * a few weeks per query, not the events themselves.
 */
export async function analyticsRetention(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  interval: RetentionInterval,
  startEvent: string,
  returnEvent: string | null,
  /** the report filter's people: only their visitors' rows are read into cohorts */
  keep?: (visitorId: string) => boolean,
): Promise<{ interval: RetentionInterval; period: { from: string; to: string }; cohorts: Cohort[] }> {
  const slotOfDay = (day: number): number => (interval === "day" ? day : weekOf(day));
  const firstSlot = slotOfDay(period.fromDay);
  const lastSlot = slotOfDay(period.toDay);
  // Intervals are numbered from the period's first: 0 … lastSlot - firstSlot.
  const visitors = new VisitorSlots(Math.ceil((lastSlot - firstSlot + 1) / 32));
  for await (const { day, rows } of activityByDay(db, project.id, period, startEvent, returnEvent)) {
    const slot = slotOfDay(day) - firstSlot;
    for (const r of rows) {
      if (keep && !keep(r.visitor_id)) continue;
      const i = visitors.indexOf(r.visitor_id);
      const f = r.f ?? STARTS;
      if (f & STARTS && day < visitors.first[i]!) visitors.first[i] = day;
      if (f & RETURNS && day >= period.fromDay) visitors.mark(i, slot);
    }
  }
  // A lead's visitors are one person: the first of them holds the person's days.
  const heads = new Map<string, number>();
  const merged = new Set<number>();
  for (const { visitor_id, lead_id: leadId } of await linksOfProject(db, project.id)) {
    const i = visitors.ids.get(visitor_id);
    if (i === undefined) continue;
    const head = heads.get(leadId);
    if (head === undefined) heads.set(leadId, i);
    else {
      visitors.merge(head, i);
      merged.add(i);
    }
  }
  const cohorts: Cohort[] = [];
  for (let s = firstSlot; s <= lastSlot; s++)
    cohorts.push({
      start: isoDay(interval === "day" ? s : weekStart(s)),
      size: 0,
      returned: Array.from({ length: lastSlot - s + 1 }, () => 0),
    });
  for (let i = 0; i < visitors.first.length; i++) {
    const first = visitors.first[i]!;
    if (merged.has(i) || first < period.fromDay || first > period.toDay) continue;
    const c = slotOfDay(first) - firstSlot;
    const cohort = cohorts[c]!;
    cohort.size++;
    cohort.returned[0]!++;
    for (const s of visitors.marked(i, c)) cohort.returned[s - c]!++;
  }
  return { interval, period: { from: period.from, to: period.to }, cohorts };
}

/** Bits of an activity row's `f`: its type is the start event's, the return event's. */
const STARTS = 1;
const RETURNS = 2;

/**
 * The project's activity rows up to the period's end, a day per query (the (project, day) index),
 * oldest first. The day is the query's, and a row's type comes back as bits (start, return), so a
 * row is a visitor id and a number: fewer columns cost less to fetch (bench/README.md). Before the
 * period only start events matter, and those rows are the visitor id alone; with a return event,
 * rows of other types are left out.
 */
async function* activityByDay(
  db: DbOrTrx,
  projectId: string,
  period: Period,
  startType: string,
  returnType: string | null,
): AsyncGenerator<{ day: number; rows: { visitor_id: string; f?: number }[] }> {
  const first = await db
    .selectFrom("analytics_activity")
    .select((eb) => eb.fn.min<number>("day").as("day"))
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  if (first?.day === null || first?.day === undefined) return;
  const returns =
    returnType === null ? sql`${RETURNS}` : sql`case when type = ${returnType} then ${RETURNS} else 0 end`;
  const f = sql<number>`(case when type = ${startType} then ${STARTS} else 0 end) + ${returns}`;
  for (let day = Number(first.day); day <= period.toDay; day++) {
    const q = db.selectFrom("analytics_activity").where("project_id", "=", projectId).where("day", "=", day);
    if (day < period.fromDay)
      yield { day, rows: await q.select("visitor_id").where("type", "=", startType).execute() };
    else if (returnType !== null)
      yield {
        day,
        rows: await q
          .select(["visitor_id", f.as("f")])
          .where("type", "in", [startType, returnType])
          .execute(),
      };
    else yield { day, rows: await q.select(["visitor_id", f.as("f")]).execute() };
  }
}
