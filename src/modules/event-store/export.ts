import { ISO_DATE_OR_TIME as ISO } from "../../platform/validation.js";
import { toCsv } from "../../platform/csv.js";
import { validation } from "../../platform/errors.js";
import type { ExportRange } from "./store/pages.js";
import { toStoredEvent } from "./stored.js";
import type { EventTable } from "./tables.js";

export type ExportFormat = "ndjson" | "csv";

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
  if (format === "csv") yield toCsv([CSV_COLUMNS as unknown as string[]]);
  for await (const page of pages) {
    if (format === "csv") {
      yield toCsv(
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
