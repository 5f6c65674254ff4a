import type { RawBuilder } from "kysely";
import { type DbOrTrx, isPostgresDb } from "../../../platform/db/index.js";
import { type Condition, eventRowWhere } from "../filters/filter.js";

/**
 * The filter's event and session conditions on rows of `events`, in the SQL of the database under
 * `db`; null when there are none.
 */
export function eventRowCondition(db: DbOrTrx, conds: Condition[]): RawBuilder<boolean> | null {
  return eventRowWhere(conds, isPostgresDb(db));
}
