import { sql } from "kysely";
import { type Trx, isPostgresDb } from "../../../platform/db/index.js";
import { rollupKey, writerShard } from "../../../platform/db/shard.js";
import { ATTRIBUTION_MODELS, type Touch, creditTouches } from "./models.js";
import { DAY_MS, dayOf } from "./rollup-store.js";
import { sessionsOf, visitorsOfPeople } from "../people.js";
import "../tables.js";

/** Touchpoints count when they start at most this long before the conversion. */
export const LOOKBACK_MS = 30 * DAY_MS;
const CHUNK = 400;

/** {model: {channel: credit}}; each model's credits sum to exactly 1. */
export type Credits = Record<string, Record<string, number>>;

export interface CreditableConversion {
  event_id: string;
  person_key: string;
  ts: number;
  revenue: number;
  counted: number;
  /** credited when no session of the person falls in the lookback window */
  channel: string;
  credits: string | null;
}

export function creditsFor(touches: Touch[], c: { ts: number; channel: string }): Credits {
  const inWindow = touches.filter((t) => t.ts <= c.ts && t.ts >= c.ts - LOOKBACK_MS);
  const list = inWindow.length > 0 ? inWindow : [{ channel: c.channel, ts: c.ts }];
  const out: Credits = {};
  for (const model of ATTRIBUTION_MODELS) {
    const credits = creditTouches(model, list, c.ts);
    const byChannel: Record<string, number> = {};
    list.forEach((t, i) => {
      byChannel[t.channel] = (byChannel[t.channel] ?? 0) + credits[i]!;
    });
    out[model] = byChannel;
  }
  return out;
}

/** Each person's sessions in the window spanning all the given conversions' lookbacks. */
async function touchesFor(
  trx: Trx,
  projectId: string,
  convs: CreditableConversion[],
): Promise<Map<string, Touch[]>> {
  const people = await visitorsOfPeople(trx, projectId, [...new Set(convs.map((c) => c.person_key))]);
  const visitors = [...new Set([...people.values()].flat())];
  const sessions = await sessionsOf(trx, projectId, visitors, {
    from: Math.min(...convs.map((c) => Number(c.ts))) - LOOKBACK_MS,
    to: Math.max(...convs.map((c) => Number(c.ts))),
  });
  const out = new Map<string, Touch[]>();
  for (const [key, members] of people)
    out.set(
      key,
      members.flatMap((v) => sessions.get(v) ?? []),
    );
  return out;
}

/**
 * (Re)credits conversions from their person's current touchpoints and applies the difference to
 * the attribution rollup: new conversions, and every conversion of a lead whose journey just
 * gained a visitor's sessions. Additive SQL updates, so concurrent writers compose.
 */
export async function creditConversions(
  trx: Trx,
  projectId: string,
  convs: CreditableConversion[],
  /** false for conversions about to be inserted: `credits` is set on the objects instead */
  persist = true,
  /** each person's sessions, when the caller has them already */
  known?: Map<string, Touch[]>,
): Promise<void> {
  if (convs.length === 0) return;
  const touches = known ?? (await touchesFor(trx, projectId, convs));
  const deltas = new Map<string, AttributionDelta>();
  const add = (
    day: number,
    model: string,
    channel: string,
    credit: number,
    c: CreditableConversion,
    sign: number,
  ) => {
    const key = `${day}|${model}|${channel}`;
    const d = deltas.get(key) ?? { day, model, channel, credited: 0, revenue: 0 };
    d.credited += sign * credit * Number(c.counted);
    d.revenue += sign * credit * Number(c.revenue);
    deltas.set(key, d);
  };
  for (const c of convs) {
    const next = creditsFor(touches.get(c.person_key) ?? [], { ts: Number(c.ts), channel: c.channel });
    const text = JSON.stringify(next);
    if (text === c.credits) continue;
    if (persist) {
      // A row deleted meanwhile (a recount or an erasure took its credits back out) moves nothing.
      const res = await trx
        .updateTable("analytics_conversions")
        .set({ credits: text })
        .where("event_id", "=", c.event_id)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) continue;
    }
    const day = dayOf(Number(c.ts));
    const prev = c.credits ? (JSON.parse(c.credits) as Credits) : {};
    for (const [model, chs] of Object.entries(prev))
      for (const [ch, credit] of Object.entries(chs)) add(day, model, ch, credit, c, -1);
    for (const [model, chs] of Object.entries(next))
      for (const [ch, credit] of Object.entries(chs)) add(day, model, ch, credit, c, 1);
    c.credits = text;
  }
  await addAttributionCredits(trx, projectId, deltas.values());
}

export interface AttributionDelta {
  day: number;
  model: string;
  channel: string;
  credited: number;
  revenue: number;
}

/**
 * Adds to the attribution rollup: on PostgreSQL to this process's rows (platform/db/shard.ts),
 * which the summary sums, in key order.
 */
export async function addAttributionCredits(
  trx: Trx,
  projectId: string,
  deltas: Iterable<AttributionDelta>,
): Promise<void> {
  const shard = writerShard(trx);
  const rows = [...deltas]
    .map((d) => ({ project_id: projectId, ...d, shard }))
    .sort((a, b) => a.day - b.day || cmp(a.model, b.model) || cmp(a.channel, b.channel));
  const key = rollupKey(["project_id", "model", "day", "channel"], isPostgresDb(trx));
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto("analytics_attribution_daily")
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(key).doUpdateSet({
          credited: sql<number>`analytics_attribution_daily.credited + excluded.credited`,
          revenue: sql<number>`analytics_attribution_daily.revenue + excluded.revenue`,
        }),
      )
      .execute();
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Conversions of a person, for re-crediting after its touchpoints changed. */
export async function conversionsOfPerson(trx: Trx, projectId: string, personKey: string) {
  return trx
    .selectFrom("analytics_conversions")
    .select(["event_id", "person_key", "ts", "revenue", "counted", "channel", "credits"])
    .where("project_id", "=", projectId)
    .where("person_key", "=", personKey)
    .execute();
}

export { DAY_MS };
