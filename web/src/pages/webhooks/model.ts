import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import type { paths } from "../../api/schema";

/**
 * The webhooks area's query keys. A subscription's change invalidates `all`, which also covers its
 * delivery log and the incoming sources (as the literal `["webhooks"]` did before).
 */
export const webhookKeys = {
  all: ["webhooks"] as const,
  subscriptions: ["webhooks", "subscriptions"] as const,
  deliveries: (id: string) => ["webhooks", "deliveries", id] as const,
  sources: ["webhooks", "sources"] as const,
};

export const useSubscriptions = () =>
  useQuery({ queryKey: webhookKeys.subscriptions, queryFn: () => call(api.GET("/api/webhooks")) });

export type EventType =
  paths["/api/webhooks"]["post"]["requestBody"]["content"]["application/json"]["events"][number];
/** The service events a subscription can ask for (the API's list; it refuses others). */
export const EVENTS = [
  "lead.created",
  "lead.updated",
  "experiment.started",
  "experiment.completed",
  "goal.reached",
  "connector.synced",
  "connector.error",
] as const satisfies readonly EventType[];
