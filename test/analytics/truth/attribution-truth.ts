import { type Channel, DAY, type Dataset, type Session } from "./dataset.js";
import { type GoalName, type Period, Truth } from "./truth.js";

/**
 * Attribution's truth for a dataset, by the rules of docs/decisions/identity-analytics.md
 * ("Analytics": touchpoints, models; "Attribution by source, medium and campaign"), computed here
 * from the generator's facts — never by Lift's code: each conversion's credit split over its
 * person's sessions started in the 30 days up to it, summed per value of the touch's session.
 */

export const MODELS = ["first_touch", "last_touch", "linear", "position_based", "time_decay"] as const;
export type Model = (typeof MODELS)[number];
export type By = "channel" | "source" | "medium" | "campaign";

/**
 * What each channel's entry page says (dataset.ts `entryOf`), read off the URL and referrer it
 * sends: utm_source (else the referrer's site), utm_medium, utm_campaign; null when it says none.
 */
const VALUES: Record<Channel, Record<Exclude<By, "channel">, string | null>> = {
  direct: { source: null, medium: null, campaign: null },
  organic_search: { source: "google", medium: null, campaign: null },
  paid_search: { source: "google", medium: "cpc", campaign: "brand" },
  organic_social: { source: "facebook", medium: null, campaign: null },
  paid_social: { source: "facebook", medium: "paid_social", campaign: "spring" },
  email: { source: "newsletter", medium: "email", campaign: "weekly" },
  referral: { source: "blog.partner.org", medium: null, campaign: null },
};

const keyOf = (s: Session, by: By): string =>
  by === "channel" ? s.channel : (VALUES[s.channel][by] ?? "(none)");

/** Each touch's share of one conversion (touches oldest first). */
function weights(model: Model, touches: Session[], at: number): number[] {
  const n = touches.length;
  let raw: number[];
  if (model === "first_touch") raw = touches.map((_, i) => (i === 0 ? 1 : 0));
  else if (model === "last_touch") raw = touches.map((_, i) => (i === n - 1 ? 1 : 0));
  else if (model === "linear") raw = touches.map(() => 1);
  else if (model === "position_based")
    raw = touches.map((_, i) => (n <= 2 ? 1 : i === 0 || i === n - 1 ? 0.4 : 0.2 / (n - 2)));
  else raw = touches.map((s) => 0.5 ** ((at - s.start) / (7 * DAY)));
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => w / total);
}

export interface Credited {
  credited: number;
  revenue: number;
}

export class AttributionTruth {
  private readonly truth: Truth;
  private readonly sessionsOf = new Map<string, Session[]>();

  constructor(d: Dataset) {
    this.truth = new Truth(d);
    for (const s of d.sessions) {
      const p = this.truth.person(s.visitor);
      this.sessionsOf.set(p, [...(this.sessionsOf.get(p) ?? []), s]);
    }
    for (const list of this.sessionsOf.values()) list.sort((a, b) => a.start - b.start);
  }

  /**
   * Credited conversions and revenue per value of `by` for the goals' conversions in the period.
   * A conversion without a session in its lookback goes whole to its person's first touch's value
   * (a session before it), else to `unattributed` (a channel) or `(none)`.
   */
  credits(
    p: Period,
    goals: GoalName[],
    model: Model,
    by: By,
    /** which people's conversions count, by their first touch (a session filter) */
    keep: (first?: Session) => boolean = () => true,
  ): Map<string, Credited> {
    const out = new Map<string, Credited>();
    const add = (key: string, credit: number, revenue: number) => {
      const row = out.get(key) ?? { credited: 0, revenue: 0 };
      row.credited += credit;
      row.revenue += credit * revenue;
      out.set(key, row);
    };
    for (const c of this.truth.conversions(p, goals)) {
      if (!keep(this.truth.firstTouch(c.person))) continue;
      const all = this.sessionsOf.get(c.person) ?? [];
      const touches = all.filter((s) => s.start <= c.ts && s.start >= c.ts - 30 * DAY);
      if (touches.length === 0) {
        const first = all[0] && all[0].start <= c.ts ? all[0] : undefined;
        add(first ? keyOf(first, by) : by === "channel" ? "unattributed" : "(none)", 1, c.revenue);
        continue;
      }
      const shares = weights(model, touches, c.ts);
      touches.forEach((s, i) => {
        add(keyOf(s, by), shares[i]!, c.revenue);
      });
    }
    return out;
  }

  /**
   * Per first-touch channel: the revenue of the goals' conversions in the period (the overview's
   * basis), of the people whose first touch `keep` accepts (undefined: they never visited).
   */
  revenueByFirstTouch(p: Period, goals: GoalName[], keep: (first?: Session) => boolean = () => true) {
    const out = new Map<string, number>();
    for (const c of this.truth.conversions(p, goals)) {
      const first = this.truth.firstTouch(c.person);
      if (!keep(first)) continue;
      const key = first?.channel ?? "unattributed";
      out.set(key, (out.get(key) ?? 0) + c.revenue);
    }
    return out;
  }
}
