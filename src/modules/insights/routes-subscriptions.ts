import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { projectOf } from "../../platform/auth/plugin.js";
import { Deleted, IdParams } from "./schema.js";
import * as svc from "./service.js";
import {
  CreateSubscriptionBody,
  ListSendsQuery,
  ListSubscriptionsQuery,
  PatchSubscriptionBody,
  SendPage,
  Subscription,
  SubscriptionPage,
} from "./subscriptions-schema.js";

const tags = ["insights"];

/** /api/subscriptions: a dashboard or an insight mailed on a schedule (project API key or any session). */
export const subscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/subscriptions",
    {
      schema: {
        operationId: "listSubscriptions",
        summary: "The project's subscriptions, newest first (a page at a time; of one dashboard or insight)",
        querystring: ListSubscriptionsQuery,
        response: { 200: SubscriptionPage },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listSubscriptions(app.db, projectOf(req), req.query),
  );

  app.post(
    "/api/subscriptions",
    {
      schema: {
        operationId: "createSubscription",
        summary:
          "Mail a dashboard or an insight daily, weekly or monthly at an hour (UTC) to workspace members",
        body: CreateSubscriptionBody,
        response: { 201: Subscription },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) =>
      reply.code(201).send(await svc.createSubscription(app.db, projectOf(req), req.body)),
  );

  app.get(
    "/api/subscriptions/:id",
    {
      schema: {
        operationId: "getSubscription",
        summary: "A subscription",
        params: IdParams,
        response: { 200: Subscription },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.getSubscription(app.db, projectOf(req), req.params.id),
  );

  app.patch(
    "/api/subscriptions/:id",
    {
      schema: {
        operationId: "updateSubscription",
        summary: "Change a subscription's schedule, recipients or name, or pause it",
        params: IdParams,
        body: PatchSubscriptionBody,
        response: { 200: Subscription },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.updateSubscription(app.db, projectOf(req), req.params.id, req.body),
  );

  app.delete(
    "/api/subscriptions/:id",
    {
      schema: {
        operationId: "deleteSubscription",
        summary: "Delete a subscription and its history of sends",
        params: IdParams,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.deleteSubscription(app.db, projectOf(req), req.params.id),
  );

  app.get(
    "/api/subscriptions/:id/sends",
    {
      schema: {
        operationId: "listSubscriptionSends",
        summary: "The subscription's sends, newest first (a page at a time), each recipient's outcome",
        params: IdParams,
        querystring: ListSendsQuery,
        response: { 200: SendPage },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listSends(app.db, projectOf(req), req.params.id, req.query),
  );
};
