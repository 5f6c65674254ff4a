import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import "./tables.js";

/**
 * Erasure: the visitors' exposures go, and their variants' counters lose them (an exposure that
 * converted counted once in each; its revenue r was r in Σ and r² in Σ²), as do their
 * secondary and guardrail conversions. Returns how many exposures were removed.
 */
export async function eraseExposuresOf(trx: Trx, project: ProjectRef, visitorIds: string[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < visitorIds.length; i += 400) {
    const chunk = visitorIds.slice(i, i + 400);
    const rows = await trx
      .deleteFrom("experiment_exposures")
      .where("project_id", "=", project.id)
      .where("visitor_id", "in", chunk)
      .returning(["experiment_id", "variant", "converted_at", "revenue"])
      .execute();
    removed += rows.length;
    for (const r of rows) {
      const revenue = Number(r.revenue);
      await trx
        .updateTable("experiment_variant_stats")
        .set({
          exposures: sql`case when exposures > 0 then exposures - 1 else 0 end`,
          ...(r.converted_at === null
            ? {}
            : { conversions: sql`case when conversions > 0 then conversions - 1 else 0 end` }),
          ...(revenue === 0
            ? {}
            : {
                revenue_sum: sql`revenue_sum - ${revenue}`,
                revenue_sum_squares: sql`revenue_sum_squares - ${revenue * revenue}`,
              }),
        })
        .where("experiment_id", "=", r.experiment_id)
        .where("variant", "=", r.variant)
        .execute();
      const hits = await trx
        .deleteFrom("experiment_goal_conversions")
        .where("experiment_id", "=", r.experiment_id)
        .where("visitor_id", "in", chunk)
        .returning(["goal_id", "variant"])
        .execute();
      for (const h of hits)
        await trx
          .updateTable("experiment_goal_stats")
          .set({ conversions: sql`case when conversions > 0 then conversions - 1 else 0 end` })
          .where("experiment_id", "=", r.experiment_id)
          .where("goal_id", "=", h.goal_id)
          .where("variant", "=", h.variant)
          .execute();
    }
  }
  return removed;
}
