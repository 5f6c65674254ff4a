import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import type { AttributionModel } from "./models.js";
import type { Period } from "./period.js";
import "./tables.js";

export interface AttributionSummary {
  model: AttributionModel;
  channels: { channel: string; creditedConversions: number; revenue: number }[];
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;

/**
 * Reads the attribution rollup (credits applied as conversions were recorded, see
 * credit-store.ts): cost grows with days × channels. Conversions are bucketed by their UTC day.
 */
export async function attributionSummary(
  db: DbOrTrx,
  project: ProjectRef,
  model: AttributionModel,
  period: Period,
): Promise<AttributionSummary> {
  const rows = await db
    .selectFrom("analytics_attribution_daily")
    .select((eb) => [
      "channel",
      eb.fn.sum<number>("credited").as("credited"),
      eb.fn.sum<number>("revenue").as("revenue"),
    ])
    .where("project_id", "=", project.id)
    .where("model", "=", model)
    .where("day", ">=", period.fromDay)
    .where("day", "<=", period.toDay)
    .groupBy("channel")
    .execute();
  const channels = rows
    .map((r) => ({
      channel: r.channel,
      creditedConversions: round6(Number(r.credited)),
      revenue: round6(Number(r.revenue)),
    }))
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
