import { sql } from "kysely";
import type { Trx } from "../../../platform/db/index.js";
import { preparedOn } from "../../../platform/db/statements.js";
import type { RawConnection } from "./delta-store.js";
import { SESSION_DIMENSIONS, type SessionDimensions } from "./dimensions.js";
import "../tables.js";

const CHUNK = 400;
/**
 * A touchpoint row stored without its session's dimensions (by a batch that did not hold the
 * session's first event) takes them, and the earlier time, from the row that has them.
 */
const DIMENSIONS_MISSING = `coalesce(${SESSION_DIMENSIONS.map((d) => `analytics_touchpoints.${d}`).join(", ")}) is null and coalesce(${SESSION_DIMENSIONS.map((d) => `excluded.${d}`).join(", ")}) is not null`;
const INSERT_TOUCHPOINT = `insert into analytics_touchpoints (project_id, session_id, visitor_id, person_key, channel, ts, ${SESSION_DIMENSIONS.join(", ")}) values (${Array(
  6 + SESSION_DIMENSIONS.length,
)
  .fill("?")
  .join(
    ", ",
  )}) on conflict (project_id, session_id) do update set ts = min(analytics_touchpoints.ts, excluded.ts), ${SESSION_DIMENSIONS.map((d) => `${d} = excluded.${d}`).join(", ")} where ${DIMENSIONS_MISSING}`;

/** One session's touchpoint: its earliest event seen, and its dimensions when known. */
export interface TouchpointRow {
  sessionId: string;
  visitorId: string;
  personKey: string;
  channel: string;
  ts: number;
  dims: SessionDimensions;
}

/**
 * Inserts the sessions' touchpoints, or completes a stored one (`DIMENSIONS_MISSING`): on SQLite
 * one prepared statement per row on `raw`, the connection under `trx`; on PostgreSQL a multi-row
 * insert per chunk. Rows go in the caller's order (it sorts them, so concurrent flushes lock alike).
 */
export async function writeTouchpoints(
  trx: Trx,
  raw: RawConnection,
  projectId: string,
  rows: TouchpointRow[],
): Promise<void> {
  if (raw) {
    const insert = preparedOn(raw, INSERT_TOUCHPOINT);
    for (const r of rows)
      insert.run(
        projectId,
        r.sessionId,
        r.visitorId,
        r.personKey,
        r.channel,
        r.ts,
        ...SESSION_DIMENSIONS.map((d) => r.dims[d]),
      );
    return;
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto("analytics_touchpoints")
      .values(
        rows.slice(i, i + CHUNK).map((r) => ({
          project_id: projectId,
          session_id: r.sessionId,
          visitor_id: r.visitorId,
          person_key: r.personKey,
          channel: r.channel,
          ts: r.ts,
          ...r.dims,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(["project_id", "session_id"])
          .doUpdateSet((eb) => ({
            ts: sql`least(analytics_touchpoints.ts, excluded.ts)`,
            ...Object.fromEntries(SESSION_DIMENSIONS.map((d) => [d, eb.ref(`excluded.${d}`)])),
          }))
          .where(sql<boolean>`${sql.raw(DIMENSIONS_MISSING)}`),
      )
      .execute();
  }
}
