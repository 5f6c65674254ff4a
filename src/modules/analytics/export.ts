import { Readable } from "node:stream";
import type { Static } from "@sinclair/typebox";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { type ExportFormat, eventPages, exportChunks, exportRange } from "../events/service.js";
import { parseFilterParam } from "./filter.js";
import { eventFilter } from "./reports.js";
import type { ExportQuery } from "./schema.js";

const CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: "application/x-ndjson; charset=utf-8",
  csv: "text/csv; charset=utf-8",
};

/**
 * A project's stored events as a download, streamed page by page in storage order: only those the
 * report filter keeps (each judged by its own session), CSV cells neutralised (events/export.ts).
 */
export async function exportEvents(db: DbOrTrx, project: ProjectRef, q: Static<typeof ExportQuery>) {
  const format = q.format ?? "ndjson";
  const range = exportRange(q);
  const { where, keep } = await eventFilter(db, project, parseFilterParam(q.filter));
  const pages = eventPages(db, project, range, { where });
  return {
    contentType: CONTENT_TYPES[format],
    filename: `events-${project.id}.${format === "csv" ? "csv" : "ndjson"}`,
    body: Readable.from(exportChunks(keep ? keptRows(pages, keep) : pages, format)),
  };
}

/** Pages with only the rows of people the filter keeps. */
async function* keptRows<R extends { visitor_id: string }>(
  pages: AsyncIterable<R[]>,
  keep: (visitorId: string) => boolean,
): AsyncGenerator<R[]> {
  for await (const page of pages) yield page.filter((r) => keep(r.visitor_id));
}
