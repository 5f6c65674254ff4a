import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";
import { addShardToKey } from "../shard.js";

/**
 * Every first exposure and conversion adds to its variant's counters, one row per
 * variant (and per variant and goal), which two API processes' flushes then updated in turn. Each
 * process now adds to rows of its own shard (platform/db/shard.ts); results sum over them.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await addShardToKey(db, dialect, "experiment_variant_stats", ["experiment_id", "variant"]);
  await addShardToKey(db, dialect, "experiment_goal_stats", ["experiment_id", "goal_id", "variant"]);
}
