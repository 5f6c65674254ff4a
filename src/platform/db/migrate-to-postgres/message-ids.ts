import type SQLite from "better-sqlite3";
import type pg from "pg";
import { tableProgress } from "./progress.js";

/**
 * Segment's messageIds (migration 0310) from SQLite's log into PostgreSQL's rows, so an SDK's retry
 * of a message sent just before the move is still a duplicate after it. Each key stays in its
 * namespace (0311): a public key's claims go to `segment_public_message_ids`, the secret keys' to
 * `segment_message_ids`, so a page's claim still never suppresses a server's message after the
 * move. Every logged key is carried:
 * the log holds the last 24 hours and what the hourly expiry has not yet deleted, and PostgreSQL's
 * claim takes over a key older than the window as it would have on SQLite, so this step needs no
 * copy of the window's rule. Idempotent (a key keeps its latest time), so a resumed run repeats it
 * whole. Runs inside the copy's read transaction: the same snapshot as the events.
 */
export async function carryMessageIds(
  sqlite: SQLite.Database,
  client: pg.Client,
  chunkKeys: number,
  width: number,
): Promise<number> {
  const total = Number(sqlite.prepare("select count(*) from segment_message_log").pluck().get());
  const bar = tableProgress("segment_message_ids", total, 0, width);
  const rows = sqlite
    .prepare(
      "select received_at, project_id, message_ids, from_public from segment_message_log order by received_at",
    )
    .raw()
    .iterate() as IterableIterator<[number, string, string, number]>;
  /** this chunk's keys, each with its latest time (a statement may not update one row twice) */
  let chunk = new Map<string, { project: string; id: string; at: number; isPublic: boolean }>();
  let read = 0;
  let carried = 0;
  const insert = async (table: string, keys: { project: string; id: string; at: number }[]) => {
    if (keys.length === 0) return;
    await client.query(
      `insert into ${table} (project_id, message_id, received_at)
         select * from unnest($1::text[], $2::text[], $3::bigint[])
       on conflict (project_id, message_id) do update
         set received_at = greatest(${table}.received_at, excluded.received_at)`,
      [keys.map((k) => k.project), keys.map((k) => k.id), keys.map((k) => k.at)],
    );
  };
  const flush = async () => {
    if (chunk.size === 0) return;
    const keys = [...chunk.values()];
    chunk = new Map();
    await insert(
      "segment_message_ids",
      keys.filter((k) => !k.isPublic),
    );
    await insert(
      "segment_public_message_ids",
      keys.filter((k) => k.isPublic),
    );
    carried += keys.length;
  };
  try {
    for (const [at, project, ids, fromPublic] of rows) {
      const isPublic = Number(fromPublic) === 1;
      // later rows are later in time: a key met again in its namespace takes the later time
      for (const id of JSON.parse(ids) as string[])
        chunk.set(`${isPublic ? "p" : "s"}\u0000${project}\u0000${id}`, {
          project,
          id,
          at: Number(at),
          isPublic,
        });
      bar.update(++read);
      if (chunk.size >= chunkKeys) await flush();
    }
    await flush();
  } finally {
    bar.finish();
  }
  return carried;
}
