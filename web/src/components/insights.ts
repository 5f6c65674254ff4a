import { useQuery } from "@tanstack/react-query";
import { api, call } from "../api/client";

/** Saved insights: saved from any report (SaveInsight), listed and placed on dashboards. */
export const insightKeys = { all: ["insights"] as const };

export const useInsights = () =>
  useQuery({
    queryKey: insightKeys.all,
    queryFn: () => call(api.GET("/api/insights", { params: { query: { limit: 200 } } })),
  });
