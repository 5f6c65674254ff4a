import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { Type } from "@sinclair/typebox";
import { projectOf } from "../../platform/auth/plugin.js";
import { type ExportFormat, exportChunks, exportRange } from "./export.js";
import { eventPages } from "./service.js";
import { eventFilter, parseFilterParam } from "../analytics/service.js";
import type { EventTable } from "./tables.js";
import { ExportQuery } from "./schema.js";

const CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: "application/x-ndjson; charset=utf-8",
  csv: "text/csv; charset=utf-8",
};

/** GET /api/export/events: a project's stored events as a download, streamed page by page. */
export async function exportRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    "/api/export/events",
    {
      schema: {
        operationId: "exportEvents",
        tags: ["events"],
        summary:
          "A project's events (bots included and flagged) as NDJSON or CSV, streamed in storage order (project API key or workspace admin)",
        querystring: ExportQuery,
        response: {
          200: {
            description: "One event per line (NDJSON) or per row after a header (CSV)",
            content: {
              "application/x-ndjson": { schema: Type.String() },
              "text/csv": { schema: Type.String() },
            },
          },
        },
      },
      preHandler: app.requireProject("read", { adminSession: true }),
    },
    async (req, reply) => {
      const q = req.query as { from?: string; to?: string; format?: ExportFormat; filter?: string };
      const format = q.format ?? "ndjson";
      const range = exportRange(q);
      const project = projectOf(req);
      const conds = parseFilterParam(q.filter);
      const { where, keep } = await eventFilter(app.db, project, conds);
      const name = `events-${project.id}.${format === "csv" ? "csv" : "ndjson"}`;
      reply
        .type(CONTENT_TYPES[format])
        .header("content-disposition", `attachment; filename="${name}"`)
        .header("cache-control", "no-store");
      const pages = eventPages(app.db, project, range, { where });
      return reply.send(Readable.from(exportChunks(keep ? keptRows(pages, keep) : pages, format)));
    },
  );
}

/** Pages with only the rows of people the filter keeps. */
async function* keptRows(
  pages: AsyncIterable<EventTable[]>,
  keep: (visitorId: string) => boolean,
): AsyncGenerator<EventTable[]> {
  for await (const page of pages) yield page.filter((r) => keep(r.visitor_id));
}
