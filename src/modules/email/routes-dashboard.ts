import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { previewDraft } from "./communications.js";
import { addManualSuppression } from "./records.js";
import { AddSuppressionBody, DraftPreviewBody, Preview, Suppression } from "./schema.js";
import type { Variables } from "./template/engine.js";

/**
 * What the dashboard's email page needs beyond the spec's endpoints: a preview of unsaved edits
 * (rendered by the same compiler a save uses) and adding an address to the suppression list by hand.
 */
export const emailDashboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    "/api/communications/preview",
    {
      schema: {
        operationId: "previewCommunicationDraft",
        summary: "Render an unsaved template body with sample variables (nothing is stored)",
        body: DraftPreviewBody,
        response: { 200: Preview },
        tags: ["communications"],
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      previewDraft(
        { name: "preview", commType: req.body.commType, slots: req.body.slots, blocks: req.body.blocks },
        (req.body.variables ?? {}) as Variables,
      ),
  );
  app.post(
    "/api/transactional/suppressions",
    {
      schema: {
        operationId: "addSuppression",
        summary: "Suppress an address by hand (reason manual); an existing entry is kept as it is",
        body: AddSuppressionBody,
        response: { 201: Suppression },
        tags: ["transactional"],
      },
      preHandler: app.requireAdmin(),
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await addManualSuppression(
            app.db,
            req.principal.workspaceId,
            req.body.email,
            req.body.detail ?? null,
          ),
        ),
  );
};
