import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";

/** The integrations area's query keys: connecting or syncing refreshes everything under `all`. */
export const integrationKeys = {
  all: ["integrations"] as const,
  connectors: ["integrations", "connectors"] as const,
  metrics: (type: string, period: string) => ["integrations", "metrics", type, period] as const,
  sync: (syncId: string | null) => ["integrations", "sync", syncId] as const,
};

export const useConnectors = () =>
  useQuery({ queryKey: integrationKeys.connectors, queryFn: () => call(api.GET("/api/connectors")) });
