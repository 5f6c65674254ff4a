import type { EventTable } from "../tables.js";

/**
 * Event rows as the writer hands them to a store: flat column values, `WIDTH` per event in
 * `COLUMNS` order (flush-rows.ts builds them), so inserts bind slices of one array instead of an
 * array per row.
 */
export const COLUMNS = [
  "id",
  "project_id",
  "visitor_id",
  "lead_id",
  "type",
  "url",
  "referrer",
  "data",
  "ts",
  "received_at",
  "session_id",
  "channel",
  "source",
  "is_bot",
  "is_server",
] as const satisfies readonly (keyof EventTable)[];
export const WIDTH = COLUMNS.length;
/** offsets of the per-visitor index's columns within a row */
export const AT = {
  project: COLUMNS.indexOf("project_id"),
  visitor: COLUMNS.indexOf("visitor_id"),
  ts: COLUMNS.indexOf("ts"),
};
