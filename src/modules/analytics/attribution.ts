import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { type AttributionModel, type Touch, creditTouches } from "./models.js";
import { DAY_MS } from "./rollup-store.js";
import type { Period } from "./period.js";
import "./tables.js";

/** Touchpoints count when they start at most this long before the conversion. */
export const LOOKBACK_MS = 30 * DAY_MS;

export interface AttributionSummary {
  model: AttributionModel;
  channels: { channel: string; creditedConversions: number; revenue: number }[];
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;

/**
 * Conversions of the period joined with the sessions of the converting person (the lead and all
 * its visitors, or the visitor alone) that started within the lookback window before it. A
 * conversion with no such session is credited to the channel it was rolled up under.
 */
export async function attributionSummary(
  db: DbOrTrx,
  project: ProjectRef,
  model: AttributionModel,
  period: Period,
): Promise<AttributionSummary> {
  const rows = await db
    .selectFrom("analytics_conversions as c")
    .leftJoin("analytics_touchpoints as t", (j) =>
      j
        .onRef("t.project_id", "=", "c.project_id")
        .onRef("t.person_key", "=", "c.person_key")
        .on("t.ts", "<=", sql.ref("c.ts"))
        .on("t.ts", ">=", sql<number>`c.ts - ${LOOKBACK_MS}`),
    )
    .select([
      "c.event_id",
      "c.ts",
      "c.revenue",
      "c.counted",
      "c.channel as fallback",
      "t.channel",
      "t.ts as touch_ts",
    ])
    .where("c.project_id", "=", project.id)
    .where("c.ts", ">=", period.fromDay * DAY_MS)
    .where("c.ts", "<", (period.toDay + 1) * DAY_MS)
    .execute();

  const conversions = new Map<
    string,
    { ts: number; revenue: number; counted: number; fallback: string; touches: Touch[] }
  >();
  for (const r of rows) {
    let c = conversions.get(r.event_id);
    if (!c) {
      c = {
        ts: Number(r.ts),
        revenue: Number(r.revenue),
        counted: Number(r.counted),
        fallback: r.fallback,
        touches: [],
      };
      conversions.set(r.event_id, c);
    }
    if (r.channel !== null && r.touch_ts !== null)
      c.touches.push({ channel: r.channel, ts: Number(r.touch_ts) });
  }
  const totals = new Map<string, { credited: number; revenue: number }>();
  for (const c of conversions.values()) {
    const touches = c.touches.length > 0 ? c.touches : [{ channel: c.fallback, ts: c.ts }];
    const credits = creditTouches(model, touches, c.ts);
    touches.forEach((t, i) => {
      const tot = totals.get(t.channel) ?? { credited: 0, revenue: 0 };
      tot.credited += credits[i]! * c.counted;
      tot.revenue += credits[i]! * c.revenue;
      totals.set(t.channel, tot);
    });
  }
  const channels = [...totals]
    .map(([channel, t]) => ({ channel, creditedConversions: round6(t.credited), revenue: round6(t.revenue) }))
    // A channel that only held zero-credit touches (e.g. the middle of a last_touch path) is not listed.
    .filter((c) => c.creditedConversions !== 0 || c.revenue !== 0)
    .sort(
      (a, b) =>
        b.creditedConversions - a.creditedConversions ||
        b.revenue - a.revenue ||
        a.channel.localeCompare(b.channel),
    );
  return { model, channels };
}
