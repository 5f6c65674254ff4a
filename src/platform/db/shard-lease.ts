import { createHash } from "node:crypto";
import pg from "pg";
import type { Config } from "../../config.js";
import type { DbHandle } from "./index.js";
import { ShardedPostgresAdapter, rollupShard } from "./shard.js";

/** Shards a process may claim: at most this many rows per counter key; readers sum over them. */
export const SHARD_COUNT = 32;

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** The shard this process holds, and how to give it back (closing the lock's connection). */
export interface ShardLease {
  readonly shard: number;
  release(): Promise<void>;
}

/** Advisory locks are per database: one namespace per schema, so test schemas never compete. */
const namespace = (schema: string) =>
  createHash("sha256").update(`lift-shard:${schema}`).digest().readInt32BE(0);

/**
 * Claims a writer shard for this process's lifetime on PostgreSQL: a session-level
 * advisory lock, held on a connection of the lease's own, so no two live processes ever write the
 * same counter rows (a hash of host and port collided one time in fifteen, and the two then queued
 * on the same rows). A process tries its host-and-port shard first (a restart reuses its rows),
 * then the others; ROLLUP_SHARD pins one. When none is free it says so and waits. A killed process's
 * connection closes and PostgreSQL frees its lock; a lost connection is re-claimed, and the writer
 * moves to whichever shard it gets (a shard is only a row key: moving is safe).
 */
export async function claimWriterShard(
  handle: DbHandle,
  config: Pick<Config, "databaseUrl" | "databaseSchema" | "rollupShard" | "port">,
  log: Logger,
  opts: { retryMs?: number } = {},
): Promise<ShardLease> {
  const found = handle.db.getExecutor().adapter;
  if (!(found instanceof ShardedPostgresAdapter)) throw new Error("shards are claimed on PostgreSQL only");
  const adapter: ShardedPostgresAdapter = found;
  const ns = namespace(config.databaseSchema ?? "public");
  const first = config.rollupShard ?? rollupShard(config.port, undefined, SHARD_COUNT);
  const order =
    config.rollupShard !== undefined
      ? [first]
      : Array.from({ length: SHARD_COUNT }, (_, i) => ((first - 1 + i) % SHARD_COUNT) + 1);
  const retryMs = opts.retryMs ?? 1000;
  let client: pg.Client | null = null;
  let released = false;

  async function claim(prefer: number): Promise<number> {
    let warned = false;
    for (;;) {
      client = new pg.Client({ connectionString: config.databaseUrl });
      client.on("error", () => {}); // the "end" handler below re-claims
      await client.connect();
      for (const k of [prefer, ...order.filter((s) => s !== prefer)]) {
        const { rows } = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1, $2) as ok", [
          ns,
          k,
        ]);
        if (rows[0]?.ok) {
          if (warned) log.info({ shard: k }, "claimed a writer shard");
          watch(client, k);
          return k;
        }
      }
      await client.end().catch(() => {});
      if (!warned)
        log.warn(
          { shards: order.length === 1 ? order : `1-${SHARD_COUNT}` },
          config.rollupShard !== undefined
            ? `writer shard ${first} (ROLLUP_SHARD) is held by another live process: waiting for it`
            : `all ${SHARD_COUNT} writer shards are held by live processes: waiting for one to be released`,
        );
      warned = true;
      await new Promise((r) => setTimeout(r, retryMs));
      if (released) throw new Error("released while waiting for a writer shard");
    }
  }

  function watch(c: pg.Client, k: number) {
    c.once("end", () => {
      if (released) return;
      log.warn({ shard: k }, "lost the connection holding the writer shard: claiming again");
      const again = () =>
        claim(k).then(
          (next) => {
            adapter.shard = next;
          },
          () => setTimeout(again, retryMs).unref(),
        );
      again();
    });
  }

  adapter.shard = await claim(first);
  return {
    get shard() {
      return adapter.shard;
    },
    async release() {
      released = true;
      await client?.end().catch(() => {});
    },
  };
}
