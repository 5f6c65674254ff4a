import { sql } from "kysely";
import { type DbOrTrx, isPostgresDb } from "../../../platform/db/index.js";
import type { EventTable } from "../tables.js";
import { sqliteVisitorEventSeqs } from "./visitor-lookups.js";
import "../tables.js";

/**
 * Rows of the given visitors' events in time order (oldest first), at most `limit`: through the
 * (project, visitor, time) index on PostgreSQL, through the per-visitor index's keys on SQLite.
 */
export async function visitorEventRows(
  db: DbOrTrx,
  projectId: string,
  visitorIds: string[],
  limit: number,
): Promise<EventTable[]> {
  if (isPostgresDb(db))
    return db
      .selectFrom("events")
      .selectAll()
      .where("project_id", "=", projectId)
      .where("visitor_id", "in", visitorIds)
      .orderBy("ts", "asc")
      .orderBy("id", "asc")
      .limit(limit)
      .execute();
  const { rows } =
    await sql<EventTable>`select * from events where seq in (${sqliteVisitorEventSeqs(projectId, visitorIds)})
    order by ts asc, id asc limit ${limit}`.execute(db);
  return rows;
}

/**
 * The project's newest rows, newest first, at most `limit`, among the installation's newest
 * `scanRows` stored rows (append order: `seq` on SQLite, the time-ordered id on PostgreSQL).
 */
export async function newestEventRows(
  db: DbOrTrx,
  projectId: string,
  limit: number,
  scanRows: number,
): Promise<EventTable[]> {
  const { rows } = isPostgresDb(db)
    ? await sql<EventTable>`select * from events
          where project_id = ${projectId}
            and id >= coalesce((select id from events order by id desc offset ${scanRows - 1} limit 1), '')
          order by id desc limit ${limit}`.execute(db)
    : await sql<EventTable>`select * from events
          where seq > coalesce((select max(seq) from events), 0) - ${scanRows}
            and project_id = ${projectId}
          order by seq desc limit ${limit}`.execute(db);
  return rows;
}
