import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";
import { addShardToKey } from "../shard.js";

/**
 * Every conversion adds its credits to the attribution rows of its day, one per model
 * and channel, which two API processes' flushes then updated in turn. Each process now adds to
 * rows of its own shard (platform/db/shard.ts); the summary sums over them.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await addShardToKey(db, dialect, "analytics_attribution_daily", ["project_id", "model", "day", "channel"]);
}
