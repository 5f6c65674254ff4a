import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";

/**
 * The dashboards area's query keys. The list and each dashboard are apart ("dashboards" and
 * "dashboard"): deleting an insight refreshes every dashboard (`anyOne`) without the list.
 */
export const dashboardKeys = {
  list: ["dashboards"] as const,
  anyOne: ["dashboard"] as const,
  one: (id: string) => ["dashboard", id] as const,
  results: (id: string) => ["dashboard", id, "results"] as const,
  /** one saved insight (under the insights' prefix: saving or deleting one refreshes it) */
  insight: (id: string) => ["insights", id] as const,
};

export const useDashboards = () =>
  useQuery({
    queryKey: dashboardKeys.list,
    queryFn: () => call(api.GET("/api/dashboards", { params: { query: { limit: 200 } } })),
  });
