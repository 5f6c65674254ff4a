import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { previewDraft } from "./communications.js";
import { addManualSuppression } from "./records.js";
import { AddSuppressionBody, DraftPreviewBody, Preview, Suppression } from "./schema.js";
import type { Variables } from "../../platform/mail/template/engine.js";

const FRAME_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src https: http: data:",
  "font-src https: data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");
const FRAME_HTML =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Email preview</title>' +
  '<script src="/api/communications/preview-frame.js"></script></head><body></body></html>';
// Replaces the document's content with the posted HTML (scripts inserted this way never run); the
// listener stays because the Window and its listeners are kept (no document.open).
const FRAME_JS = `window.addEventListener("message", function (e) {
  if (e.source !== window.parent || typeof e.data !== "object" || e.data === null) return;
  if (e.data.type !== "lift-email-preview" || typeof e.data.html !== "string") return;
  // Web fonts (a <link> or an @import that MJML adds) are left out: a preview makes no third-party
  // requests, and the CSP would refuse them anyway. Mail clients load them when they show the email.
  var html = e.data.html
    .replace(/<link\\b[^>]*>/gi, "")
    .replace(/@import\\s+url\\([^)]*\\)\\s*;?/gi, "");
  document.documentElement.innerHTML = html;
});
// Links in a preview do not navigate: the frame stays this shell, the only page the draft is posted to.
document.addEventListener("click", function (e) {
  if (e.target instanceof Element && e.target.closest("a, area, form")) e.preventDefault();
});
document.addEventListener("submit", function (e) {
  e.preventDefault();
});
window.parent.postMessage({ type: "lift-email-preview-ready" }, "*");
`;

/**
 * What the dashboard's email page needs beyond the spec's endpoints: a preview of unsaved edits
 * (rendered by the same compiler a save uses) and adding an address to the suppression list by hand.
 */
export const emailDashboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The rendered HTML of a preview needs inline styles (email HTML is all inline styles), which the
  // dashboard's CSP forbids, and a srcdoc frame would inherit that CSP. So the dashboard shows it in
  // a sandboxed frame of this shell, whose own CSP allows inline styles but no script except its
  // own, and posts the HTML to it. The shell holds no data: it needs no authentication.
  app.get("/api/communications/preview-frame", { schema: { hide: true } }, async (_req, reply) =>
    reply
      .header("content-type", "text/html; charset=utf-8")
      .header("cache-control", "no-cache")
      .header("content-security-policy", FRAME_CSP)
      .send(FRAME_HTML),
  );
  app.get("/api/communications/preview-frame.js", { schema: { hide: true } }, async (_req, reply) =>
    reply
      .header("content-type", "text/javascript; charset=utf-8")
      .header("cache-control", "no-cache")
      .send(FRAME_JS),
  );

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
