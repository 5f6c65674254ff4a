import { type Channel, DAY, DEVICE_TYPE, type Dataset, type Session } from "./dataset.js";

/**
 * What Lift must answer for a dataset, computed here from the generator's own facts (sessions as
 * generated, people as stitched), by the definitions in docs/decisions/identity-analytics.md ("One
 * conversion model") — never by Lift's code.
 */

export interface Period {
  from: number;
  /** exclusive */
  to: number;
}

/** `7d`/`30d`: whole UTC days ending today. */
export function periodOf(days: number, now: number): Period {
  const today = Math.floor(now / DAY) * DAY;
  return { from: today - (days - 1) * DAY, to: today + DAY };
}

const within = (p: Period, ts: number) => ts >= p.from && ts < p.to;

export type GoalName = "purchase" | "upgrade_click" | "signup";

interface Conversion {
  type: GoalName | "activation";
  ts: number;
  person: string;
  revenue: number;
  /** a web event's session */
  session?: Session;
}

export class Truth {
  private personOfVisitor = new Map<string, string>();
  /** every session of each person, oldest first */
  private sessionsOf = new Map<string, Session[]>();
  private events: Conversion[] = [];

  constructor(readonly d: Dataset) {
    for (const v of d.visitors) this.personOfVisitor.set(v.id, v.lead ? `l:${v.lead}` : `v:${v.id}`);
    for (const s of d.sessions) {
      const p = this.person(s.visitor);
      const list = this.sessionsOf.get(p) ?? [];
      list.push(s);
      this.sessionsOf.set(p, list);
    }
    for (const list of this.sessionsOf.values()) list.sort((a, b) => a.start - b.start);
    for (const a of d.actions)
      this.events.push({
        type: a.type,
        ts: a.ts,
        person: this.person(a.visitor),
        revenue: 0,
        session: a.session,
      });
    for (const e of d.server)
      this.events.push({
        type: e.type,
        ts: e.ts,
        person: e.lead ? `l:${e.lead}` : this.person(e.visitor!),
        revenue: e.revenue ?? 0,
      });
  }

  person(visitor: string): string {
    return this.personOfVisitor.get(visitor) ?? `v:${visitor}`;
  }

  /** Visitors of the period: those with a web visit (a session) in it. */
  visitors(p: Period, sessionFilter: (s: Session) => boolean = () => true): Set<string> {
    const out = new Set<string>();
    for (const s of this.d.sessions) if (within(p, s.start) && sessionFilter(s)) out.add(s.visitor);
    return out;
  }

  /** Conversions of the goals (events matching one of them), any origin, in the period. */
  conversions(p: Period, goals: GoalName[]): Conversion[] {
    return this.events.filter((e) => within(p, e.ts) && (goals as string[]).includes(e.type));
  }

  /** People who converted in the period. */
  converters(p: Period, goals: GoalName[]): Set<string> {
    return new Set(this.conversions(p, goals).map((c) => c.person));
  }

  /** Visitors of the period whose person converted in it: a rate's numerator. */
  convertedVisitors(p: Period, goals: GoalName[], visitors = this.visitors(p)): number {
    const converters = this.converters(p, goals);
    let n = 0;
    for (const v of visitors) if (converters.has(this.person(v))) n++;
    return n;
  }

  /** The person's first web session ever (their first touch), if they had one. */
  firstTouch(person: string): Session | undefined {
    return this.sessionsOf.get(person)?.[0];
  }

  /** Per first-touch channel: the period's visitors whose person came first from it, and those who converted. */
  byFirstTouch(p: Period, goals: GoalName[], key: (s: Session) => string = (s) => s.channel) {
    const converters = this.converters(p, goals);
    const out = new Map<string, { visitors: number; converted: number }>();
    for (const v of this.visitors(p)) {
      const first = this.firstTouch(this.person(v));
      const k = first ? key(first) : "(none)";
      const row = out.get(k) ?? { visitors: 0, converted: 0 };
      row.visitors++;
      if (converters.has(this.person(v))) row.converted++;
      out.set(k, row);
    }
    return out;
  }

  /** Conversions of people who never visited (no web session at all). */
  withoutVisit(p: Period, goals: GoalName[]): Conversion[] {
    return this.conversions(p, goals).filter((c) => !this.sessionsOf.has(c.person));
  }

  /** Visitors with a visit on each channel in the period (the traffic a channel brought). */
  channelTraffic(p: Period): Map<Channel, number> {
    const sets = new Map<Channel, Set<string>>();
    for (const s of this.d.sessions)
      if (within(p, s.start)) {
        const set = sets.get(s.channel) ?? new Set();
        set.add(s.visitor);
        sets.set(s.channel, set);
      }
    return new Map([...sets].map(([c, set]) => [c, set.size]));
  }

  /**
   * signup → activation → purchase within `windowDays` of the entry, people entering in the
   * period; `entry` selects people by the session of their signup (the step-1 event).
   */
  funnel(p: Period, windowDays = 14, entry: (s: Session) => boolean = () => true): number[] {
    const steps: (GoalName | "activation")[] = ["signup", "activation", "purchase"];
    const byPerson = new Map<string, Conversion[]>();
    for (const e of this.events) {
      const list = byPerson.get(e.person) ?? [];
      list.push(e);
      byPerson.set(e.person, list);
    }
    const counts = [0, 0, 0];
    for (const [, list] of byPerson) {
      list.sort((a, b) => a.ts - b.ts);
      let best = 0;
      for (const first of list) {
        if (first.type !== "signup" || !within(p, first.ts)) continue;
        if (!first.session || !entry(first.session)) continue;
        let reached = 1;
        let at = first.ts;
        for (const step of steps.slice(1)) {
          const next = list.find((e) => e.type === step && e.ts > at && e.ts <= first.ts + windowDays * DAY);
          if (!next) break;
          reached++;
          at = next.ts;
        }
        best = Math.max(best, reached);
      }
      for (let i = 0; i < best; i++) counts[i]!++;
    }
    return counts;
  }

  deviceOf = (s: Session) => DEVICE_TYPE[s.device];

  /** Leads created in the period: each dated by its earliest known time (its first visit, or a server's first event). */
  leadsCreated(p: Period): number {
    const created = new Map<string, number>();
    const note = (lead: string, ts: number) => created.set(lead, Math.min(created.get(lead) ?? ts, ts));
    for (const lead of this.d.leads)
      for (const v of lead.visitors)
        for (const s of this.d.sessions) if (s.visitor === v) note(lead.id, s.start);
    for (const e of this.d.server)
      if (e.lead && !this.d.leads.some((l) => l.id === e.lead)) note(e.lead, e.ts);
    return [...created.values()].filter((ts) => within(p, ts)).length;
  }

  /**
   * Credits per channel for the goals' conversions in the period: the person's sessions started in
   * the 30 days up to the conversion (first, last, or each equally); none: the person's first touch,
   * else `unattributed`.
   */
  attribution(
    p: Period,
    goals: GoalName[],
    model: "first_touch" | "last_touch" | "linear",
  ): Map<string, number> {
    const out = new Map<string, number>();
    const add = (channel: string, credit: number) => out.set(channel, (out.get(channel) ?? 0) + credit);
    for (const c of this.conversions(p, goals)) {
      const sessions = (this.sessionsOf.get(c.person) ?? []).filter(
        (s) => s.start <= c.ts && s.start >= c.ts - 30 * DAY,
      );
      if (sessions.length === 0) {
        add(this.firstTouch(c.person)?.channel ?? "unattributed", 1);
        continue;
      }
      if (model === "first_touch") add(sessions[0]!.channel, 1);
      else if (model === "last_touch") add(sessions[sessions.length - 1]!.channel, 1);
      else for (const s of sessions) add(s.channel, 1 / sessions.length);
    }
    return out;
  }

  /** Weekly retention: people by the Monday-based week of their first page view ever, and who came back (any event). */
  retention(p: Period): { start: string; size: number; returned: number[] }[] {
    const week = (ts: number) => Math.floor((Math.floor(ts / DAY) + 3) / 7);
    const weekStartIso = (w: number) => new Date((w * 7 - 3) * DAY).toISOString().slice(0, 10);
    const activity = new Map<string, number[]>();
    const note = (person: string, ts: number) => {
      const list = activity.get(person) ?? [];
      list.push(ts);
      activity.set(person, list);
    };
    const firstView = new Map<string, number>();
    for (const s of this.d.sessions)
      for (const page of s.pages) {
        const person = this.person(s.visitor);
        note(person, page.ts);
        firstView.set(person, Math.min(firstView.get(person) ?? Number.POSITIVE_INFINITY, page.ts));
      }
    for (const e of this.events) note(e.person, e.ts);
    const last = week(p.to - 1);
    const out: { start: string; size: number; returned: number[] }[] = [];
    for (let w = week(p.from); w <= last; w++) {
      const members = [...firstView]
        .filter(([, ts]) => ts >= p.from && ts < p.to && week(ts) === w)
        .map(([person]) => person);
      const returned = [members.length];
      for (let k = 1; w + k <= last; k++)
        returned.push(
          members.filter((m) => activity.get(m)!.some((ts) => week(ts) === w + k && ts < p.to)).length,
        );
      out.push({ start: weekStartIso(w), size: members.length, returned });
    }
    return out;
  }
}
