import { api, call } from "../../api/client";
import type { Condition } from "../../components/filter";
import type { PeriodQuery } from "../../components/period";
import { analyticsKeys } from "../../components/analyticsKeys";

export interface PathsSettings {
  event: string;
  page: string;
  direction: "after" | "before";
  steps: number;
}

/** The API's request for the paths shown: also the settings of a saved paths insight. */
export const pathsBody = (s: PathsSettings, period: PeriodQuery, filter: Condition[]) => ({
  ...period,
  start: { event: s.event || "pageview", ...(s.page ? { page: s.page } : {}) },
  direction: s.direction,
  steps: s.steps,
  limit: 20,
  ...(filter.length > 0 ? { filter } : {}),
});

export const fetchPaths = (s: PathsSettings, period: PeriodQuery, filter: Condition[]) =>
  call(api.POST("/api/analytics/paths", { body: pathsBody(s, period, filter) }));
export type Paths = Awaited<ReturnType<typeof fetchPaths>>;
export type Link = Paths["links"][number];

export const pathsKey = (s: PathsSettings, period: PeriodQuery, filter: string | undefined) =>
  analyticsKeys.paths(s, period, filter);

/** The settings kept in the URL (`?event=&page=&direction=&steps=`), so a view is a link. */
export function settingsOf(params: URLSearchParams): PathsSettings {
  const steps = Number(params.get("steps") ?? "3");
  return {
    event: params.get("event") ?? "pageview",
    page: params.get("page") ?? "",
    direction: params.get("direction") === "before" ? "before" : "after",
    steps: Number.isInteger(steps) && steps >= 1 && steps <= 5 ? steps : 3,
  };
}
