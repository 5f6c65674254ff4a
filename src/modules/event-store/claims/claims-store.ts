import type SQLite from "better-sqlite3";
import { sql } from "kysely";
import { type DbOrTrx, type Trx, isPostgresDb } from "../../../platform/db/index.js";
import type { FlushItem } from "../flush-rows.js";
import { DEDUP_WINDOW_MS, type MessageClaims, filterItems, fromPublic, keyOf, scopeOf } from "./dedup.js";
import { RecentKeys, keyClock } from "./recent-keys.js";
import "./tables.js";

/** rows per expiry statement: short statements between the writer's flushes */
const EXPIRE_CHUNK = 10_000;
/** how often SQLite's memory drops expired claims (a rehash of the table) */
const SWEEP_EVERY_MS = 3_600_000;

/**
 * SQLite: one process owns the file, so its memory decides (RecentKeys, rebuilt from the log at
 * start) and `segment_message_log` is the log that survives the process: a row per request with the
 * ids it claimed, appended in the flush's transaction. A flush that rolls back takes its claims
 * back, so the next attempt (or a retried request) finds the keys free again.
 */
export class SqliteClaims implements MessageClaims {
  private keys = new RecentKeys(DEDUP_WINDOW_MS / 1000);
  /** this flush's claims: scope, id, scope, id, … */
  private pending: string[] = [];
  /** when expired claims last left memory (the log's rows go in the hourly job) */
  private swept = Date.now();
  private append: SQLite.Statement;

  constructor(private sqlite: SQLite.Database) {
    this.append = sqlite.prepare(
      "insert into segment_message_log (received_at, project_id, message_ids, from_public) values (?, ?, ?, ?)",
    );
    this.load();
  }

  /** The claims of the last 24 hours, from the log (in time order, so a renewed claim wins). */
  private load(): void {
    const rows = this.sqlite
      .prepare(
        "select received_at, project_id, message_ids, from_public from segment_message_log where received_at >= ? order by received_at",
      )
      .raw()
      .iterate(Date.now() - DEDUP_WINDOW_MS) as IterableIterator<[number, string, string, number]>;
    for (const [at, project, ids, isPublic] of rows) {
      const now = keyClock(Number(at));
      const scope = scopeOf(project, Number(isPublic) === 1);
      for (const id of JSON.parse(ids) as string[]) this.keys.claim(scope, id, now);
    }
  }

  async claim(_trx: Trx, items: readonly FlushItem[]): Promise<FlushItem[]> {
    this.pending = [];
    if (Date.now() - this.swept > SWEEP_EVERY_MS) {
      this.swept = Date.now();
      this.keys.sweep(keyClock(this.swept));
    }
    let claimed: string[] = [];
    let from: FlushItem | null = null;
    // The same connection as the flush's transaction (better-sqlite3 has one), as the events' rows.
    const log = () => {
      if (from && claimed.length > 0)
        this.append.run(from.receivedAt, from.project.id, JSON.stringify(claimed), fromPublic(from) ? 1 : 0);
      claimed = [];
    };
    const out = filterItems(items, (it, id) => {
      if (it !== from) {
        log();
        from = it;
      }
      const scope = scopeOf(it.project.id, fromPublic(it));
      if (!this.keys.claim(scope, id, keyClock(it.receivedAt))) return false;
      this.pending.push(scope, id);
      claimed.push(id);
      return true;
    });
    log();
    return out;
  }

  committed(): void {
    this.pending = [];
  }

  rolledBack(): void {
    for (let i = 0; i < this.pending.length; i += 2)
      this.keys.release(this.pending[i]!, this.pending[i + 1]!);
    this.pending = [];
  }
}

/** PostgreSQL's table of each namespace (migration 0311). */
const PG_TABLES = { secret: "segment_message_ids", public: "segment_public_message_ids" } as const;

/**
 * PostgreSQL: the primary key decides, across processes. One statement per flush and namespace
 * inserts the flush's keys in key order (two flushes lock shared keys in the same order: no
 * deadlock between them; PostgreSQL sorts, and drops a key repeated in the flush); a key another
 * transaction holds makes the insert wait for it, then count as taken if it committed. A stored
 * key older than the window is taken over. The statement answers how many keys it claimed: when
 * that is every keyed event of the namespace (no duplicate, the usual case) nothing more is read;
 * else a second statement reads which keys this transaction claimed (their row version is its own).
 */
export class PostgresClaims implements MessageClaims {
  async claim(trx: Trx, items: readonly FlushItem[]): Promise<readonly FlushItem[]> {
    // Every flush claims the secret namespace first: two flushes take their locks in one order.
    const claimed = {
      secret: await claimIn(trx, PG_TABLES.secret, items, false),
      public: await claimIn(trx, PG_TABLES.public, items, true),
    };
    if (claimed.secret === "all" && claimed.public === "all") return items;
    // An event keeps its key only once: a later event of the flush with the same key is a duplicate.
    return filterItems(items, (it, id) => {
      const mine = fromPublic(it) ? claimed.public : claimed.secret;
      return mine === "all" || mine.delete(keyOf(it.project.id, id));
    });
  }

  committed(): void {}
  rolledBack(): void {}
}

/** Claims the flush's keys of one namespace: "all" of them, or the set of those this transaction got. */
async function claimIn(
  trx: Trx,
  table: string,
  items: readonly FlushItem[],
  isPublic: boolean,
): Promise<Set<string> | "all"> {
  const projects: string[] = [];
  const ids: string[] = [];
  const times: number[] = [];
  for (const it of items) {
    if (!it.messageIds || fromPublic(it) !== isPublic) continue;
    for (const id of it.messageIds) {
      if (id === null) continue;
      projects.push(it.project.id);
      ids.push(id);
      times.push(it.receivedAt);
    }
  }
  if (ids.length === 0) return "all";
  const t = sql.table(table);
  const { rows } = await sql<{ n: number }>`
    with claimed as (
      insert into ${t} (project_id, message_id, received_at)
      select distinct on (p, m) p, m, t
        from unnest(${projects}::text[], ${ids}::text[], ${times}::bigint[]) as k(p, m, t)
        order by p, m
      on conflict (project_id, message_id) do update set received_at = excluded.received_at
        where ${t}.received_at < ${Date.now() - DEDUP_WINDOW_MS}
      returning 1)
    select count(*)::int as n from claimed`.execute(trx);
  if (rows[0]!.n === ids.length) return "all";
  const mine = await sql<{ project_id: string; message_id: string }>`
    select project_id, message_id from ${t}
    where (project_id, message_id) in (select * from unnest(${projects}::text[], ${ids}::text[]))
      and xmin::text::bigint = txid_current() % 4294967296`.execute(trx);
  return new Set(mine.rows.map((r) => keyOf(r.project_id, r.message_id)));
}

/**
 * Deletes stored keys older than the window, in short statements (the hourly job): PostgreSQL's
 * rows, SQLite's log. SQLite's memory drops them as the writer claims (SWEEP_EVERY_MS).
 */
export async function expireMessageIds(db: DbOrTrx, now = Date.now()): Promise<number> {
  const cutoff = now - DEDUP_WINDOW_MS;
  let deleted = 0;
  if (isPostgresDb(db)) {
    // Chunks found through the BRIN index on received_at (rows lie in about that order).
    for (const table of Object.values(PG_TABLES)) {
      const t = sql.table(table);
      for (;;) {
        const res = await sql`delete from ${t} where ctid in (
          select ctid from ${t} where received_at < ${cutoff} limit ${EXPIRE_CHUNK})`.execute(db);
        const n = Number(res.numAffectedRows ?? 0);
        deleted += n;
        if (n < EXPIRE_CHUNK) break;
      }
    }
    return deleted;
  }
  for (;;) {
    // SQLite's B-tree on received_at: the chunk's last time; rows up to it go in this statement.
    const bound = await db
      .selectFrom("segment_message_log")
      .select("received_at")
      .where("received_at", "<", cutoff)
      .orderBy("received_at")
      .offset(EXPIRE_CHUNK)
      .limit(1)
      .executeTakeFirst();
    const upTo = bound ? Math.min(Number(bound.received_at), cutoff - 1) : cutoff - 1;
    const res = await db
      .deleteFrom("segment_message_log")
      .where("received_at", "<=", upTo)
      .executeTakeFirst();
    deleted += Number(res.numDeletedRows);
    if (!bound) return deleted;
  }
}
