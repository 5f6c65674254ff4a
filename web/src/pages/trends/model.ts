import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router";
import { api, call } from "../../api/client";
import type { paths } from "../../api/schema";
import { type TrendShown, type View, readTrend, readView, writeTrend } from "./url";

type TrendsBody = paths["/api/analytics/trends"]["post"]["requestBody"]["content"]["application/json"];

/** The trends area's queries: one answer per request body (period, filter and goal are in it). */
export const trendsKeys = {
  all: ["trends"] as const,
  result: (body: unknown) => ["trends", "result", body] as const,
};

export const useTrends = (body: TrendsBody | null) =>
  useQuery({
    queryKey: trendsKeys.result(body),
    enabled: body !== null,
    queryFn: () => call(api.POST("/api/analytics/trends", { body: body! })),
  });

/** The trend shown and the view, kept in the URL (url.ts) so a link or a reload shows the same. */
export function useTrendParams() {
  const [params, setParams] = useSearchParams();
  return {
    shown: readTrend(params),
    view: readView(params),
    show: (next: TrendShown) => setParams((prev) => writeTrend(prev, next)),
    setView: (next: View) =>
      setParams(
        (prev) => {
          const out = new URLSearchParams(prev);
          if (next === "line") out.delete("view");
          else out.set("view", next);
          return out;
        },
        { replace: true },
      ),
  };
}
