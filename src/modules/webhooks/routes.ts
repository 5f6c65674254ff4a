import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { retryDelivery } from "./delivery.js";
import {
  CreatedWebhook,
  CreateWebhookBody,
  DeleteWebhookBody,
  Deleted,
  DeliveriesQuery,
  DeliveryPage,
  DeliveryParams,
  IdParam,
  PatchWebhookBody,
  Webhook,
} from "./schema.js";
import * as svc from "./service.js";
import { projectOf } from "../../platform/auth/plugin.js";

const tags = ["webhooks"];

/** Outgoing subscriptions: project-scoped CRUD, the delivery log and manual re-send. */
export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = () => ({
    db: app.db,
    secrets: app.secrets,
    allowPrivateTargets: app.config.allowPrivateWebhookTargets,
  });

  app.get(
    "/api/webhooks",
    {
      schema: {
        operationId: "listWebhooks",
        summary: "List webhook subscriptions",
        response: { 200: Type.Array(Webhook) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listWebhooks(app.db, projectOf(req)),
  );

  app.post(
    "/api/webhooks",
    {
      schema: {
        operationId: "createWebhook",
        summary: "Subscribe an HTTPS URL to service events (the secret is returned once)",
        body: CreateWebhookBody,
        response: { 201: CreatedWebhook },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => reply.code(201).send(await svc.createWebhook(deps(), projectOf(req), req.body)),
  );

  app.patch(
    "/api/webhooks",
    {
      schema: {
        operationId: "updateWebhook",
        summary: "Change a subscription's URL or events, or disable or re-enable it",
        body: PatchWebhookBody,
        response: { 200: Webhook },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.patchWebhook(deps(), projectOf(req), req.body),
  );

  app.delete(
    "/api/webhooks",
    {
      schema: {
        operationId: "deleteWebhook",
        summary: "Delete a webhook subscription",
        body: DeleteWebhookBody,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.deleteWebhook(app.db, projectOf(req), req.body.id),
  );

  app.get(
    "/api/webhooks/:id/deliveries",
    {
      schema: {
        operationId: "listWebhookDeliveries",
        summary: "List a subscription's deliveries and their attempts",
        params: IdParam,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryPage },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listDeliveries(app.db, projectOf(req), req.params.id, req.query),
  );

  app.post(
    "/api/webhooks/:id/deliveries/:deliveryId/retry",
    {
      schema: {
        operationId: "retryWebhookDelivery",
        summary: "Send a delivery again",
        errors: ["CONFLICT"],
        params: DeliveryParams,
        response: { 202: Type.Object({ id: Type.String(), status: Type.Literal("pending") }) },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) =>
      reply.code(202).send(await retryDelivery(app.db, projectOf(req), req.params.id, req.params.deliveryId)),
  );
};
