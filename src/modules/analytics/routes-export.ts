import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { projectOf } from "../../platform/auth/plugin.js";
import { streamFromFirst } from "../../platform/read-pool/task.js";
import { exportFile, exportTask } from "./reports/export.js";
import { ExportQuery } from "./schema.js";

/** GET /api/export/events: a project's stored events as a download (project API key or workspace admin). */
// Untyped instance: the answer is a stream, which the type provider's string schema does not cover.
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
      const query = req.query as Static<typeof ExportQuery>;
      const file = exportFile(projectOf(req), query);
      const body = await streamFromFirst(app.deps.reads.stream(exportTask, projectOf(req), query));
      return reply
        .type(file.contentType)
        .header("content-disposition", `attachment; filename="${file.filename}"`)
        .header("cache-control", "no-store")
        .send(body);
    },
  );
}
