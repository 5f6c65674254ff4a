import type { Trx } from "../../../platform/db/index.js";
import { preparedOn } from "../../../platform/db/statements.js";
import type { RawConnection } from "./delta-store.js";
import "../tables.js";

const CHUNK = 400;
const INSERT = "insert into analytics_activity (project_id, day, type, visitor_id) values (?, ?, ?, ?)";

/** A project × day × event type × visitor first seen by this process. */
export interface ActivityRow {
  projectId: string;
  day: number;
  type: string;
  visitorId: string;
}

/**
 * Inserts activity rows in the caller's transaction: on SQLite one prepared statement per row on
 * `raw`, the connection under `trx`; on PostgreSQL a multi-row insert per chunk.
 */
export async function insertActivity(trx: Trx, raw: RawConnection, rows: ActivityRow[]): Promise<void> {
  if (raw) {
    const insert = preparedOn(raw, INSERT);
    for (const r of rows) insert.run(r.projectId, r.day, r.type, r.visitorId);
    return;
  }
  for (let i = 0; i < rows.length; i += CHUNK)
    await trx
      .insertInto("analytics_activity")
      .values(
        rows
          .slice(i, i + CHUNK)
          .map((r) => ({ project_id: r.projectId, day: r.day, type: r.type, visitor_id: r.visitorId })),
      )
      .execute();
}
