import { stringify } from "csv-stringify/sync";
import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { type DbOrTrx, isPostgresDb } from "../../platform/db/index.js";
import { validation } from "../../platform/errors.js";
import { toStoredEvent } from "./service.js";
import type { EventTable } from "./tables.js";

export type ExportFormat = "ndjson" | "csv";
export const EXPORT_PAGE_ROWS = 2000;

/** [from, to) in epoch ms. */
export interface ExportRange {
  from: number;
  to: number;
}

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DAY_MS = 86_400_000;

/**
 * `from`/`to` as ISO dates or date-times. A date means its whole UTC day: `to=2026-11-30`
 * includes that day. Both optional: from the first event to now.
 */
export function exportRange(q: { from?: string; to?: string }, now = Date.now()): ExportRange {
  const parse = (value: string, field: string, endOfDay: boolean): number => {
    const ms = ISO.test(value) ? Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value) : Number.NaN;
    if (!Number.isFinite(ms)) throw validation(`query.${field} must be an ISO 8601 date or date-time`);
    return endOfDay && value.length === 10 ? ms + DAY_MS : endOfDay ? ms + 1 : ms;
  };
  const from = q.from !== undefined ? parse(q.from, "from", false) : 0;
  const to = q.to !== undefined ? parse(q.to, "to", true) : now + 1;
  if (from >= to) throw validation("query.from must be before query.to");
  return { from, to };
}

/**
 * A project's events in [from, to), in storage order, one page at a time: each page is its own
 * short read (keyset on the table's key: `seq` on SQLite, the time-ordered `id` on PostgreSQL),
 * so memory stays one page whatever the export's size and no read transaction stays open.
 */
export async function* exportEventPages(
  db: DbOrTrx,
  project: ProjectRef,
  range: ExportRange,
  pageRows = EXPORT_PAGE_ROWS,
): AsyncGenerator<EventTable[]> {
  if (isPostgresDb(db)) {
    let after = "";
    for (;;) {
      const rows = await db
        .selectFrom("events")
        .selectAll()
        .where("project_id", "=", project.id)
        .where("id", ">", after)
        .where("ts", ">=", range.from)
        .where("ts", "<", range.to)
        .orderBy("id")
        .limit(pageRows)
        .execute();
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]!.id;
    }
  }
  let after = 0;
  for (;;) {
    const { rows } = await sql<EventTable & { seq: number }>`select seq, * from events
      where seq > ${after} and project_id = ${project.id} and ts >= ${range.from} and ts < ${range.to}
      order by seq limit ${pageRows}`.execute(db);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]!.seq;
  }
}

const CSV_COLUMNS = [
  "id",
  "timestamp",
  "type",
  "visitor_id",
  "lead_id",
  "session_id",
  "url",
  "referrer",
  "channel",
  "source",
  "origin",
  "is_bot",
  "data",
] as const;

const iso = (ms: number | string): string => new Date(Number(ms)).toISOString();

/** The export as text chunks, one per page: NDJSON lines or CSV rows (a header first). */
export async function* exportChunks(
  pages: AsyncIterable<EventTable[]>,
  format: ExportFormat,
): AsyncGenerator<string> {
  if (format === "csv") yield stringify([CSV_COLUMNS as unknown as string[]]);
  for await (const page of pages) {
    if (format === "csv") {
      yield stringify(
        page.map((r) => [
          r.id,
          iso(r.ts),
          r.type,
          r.visitor_id,
          r.lead_id ?? "",
          r.session_id,
          r.url,
          r.referrer ?? "",
          r.channel,
          r.source ?? "",
          Number(r.is_server) === 1 ? "server" : "web",
          Number(r.is_bot) === 1 ? "true" : "false",
          r.data,
        ]),
      );
      continue;
    }
    let out = "";
    for (const r of page) {
      const { timestamp, ...e } = toStoredEvent(r);
      out += `${JSON.stringify({ ...e, timestamp: iso(timestamp) })}\n`;
    }
    yield out;
  }
}
