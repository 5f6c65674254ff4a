import type { Static } from "@sinclair/typebox";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import { defineReadTask } from "../../../platform/read-pool/task.js";
import { type ExportFormat, eventPages, exportChunks, exportRange } from "../../event-store/service.js";
import { parseFilterParam } from "../filters/filter.js";
import { eventFilter } from "./reports.js";
import type { ExportQuery } from "../schema.js";

const CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: "application/x-ndjson; charset=utf-8",
  csv: "text/csv; charset=utf-8",
};

/** What a download of the project's events is called and which type it has. */
export function exportFile(project: ProjectRef, q: Static<typeof ExportQuery>) {
  const format = q.format ?? "ndjson";
  return {
    contentType: CONTENT_TYPES[format],
    filename: `events-${project.id}.${format === "csv" ? "csv" : "ndjson"}`,
  };
}

/**
 * A project's stored events as text chunks, page by page in storage order: only those the report
 * filter keeps (each judged by its own session), CSV cells neutralised (event-store/export.ts). A read
 * task, streamed from a reader thread one chunk at a time as the download is read.
 */
export const exportTask = defineReadTask(
  "analytics.export",
  async (ctx, project, q: Static<typeof ExportQuery>): Promise<AsyncIterable<string>> => {
    const range = exportRange(q);
    const { where, keep } = await eventFilter(ctx, project, parseFilterParam(q.filter));
    const pages = eventPages(ctx.db, project, range, { where });
    return exportChunks(keep ? keptRows(pages, keep) : pages, q.format ?? "ndjson");
  },
);

/** Pages with only the rows of people the filter keeps. */
async function* keptRows<R extends { visitor_id: string }>(
  pages: AsyncIterable<R[]>,
  keep: (visitorId: string) => boolean,
): AsyncGenerator<R[]> {
  for await (const page of pages) yield page.filter((r) => keep(r.visitor_id));
}
