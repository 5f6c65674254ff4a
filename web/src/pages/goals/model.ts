import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import type { paths } from "../../api/schema";

/**
 * The goals area's query keys. Editing a conversion goal invalidates `goalKeys.all` too: a goal's
 * metric may be a conversion goal's name, so its progress changes with it.
 */
export const goalKeys = { all: ["goals"] as const, list: ["goals", "list"] as const };
export const conversionGoalKeys = {
  all: ["conversion-goals"] as const,
  list: ["conversion-goals", "list"] as const,
};
/** A belief's own key sits under `all`, so adding evidence refreshes it and the list at once. */
export const beliefKeys = {
  all: ["beliefs"] as const,
  list: ["beliefs", "list"] as const,
  detail: (id: string) => ["beliefs", id] as const,
};

export const useGoals = () =>
  useQuery({ queryKey: goalKeys.list, queryFn: () => call(api.GET("/api/goals")) });
export type ConversionGoal =
  paths["/api/conversion-goals"]["get"]["responses"]["200"]["content"]["application/json"][number];
/** While a goal's history is being recounted, the list asks again every few seconds to show its progress. */
const RECOUNT_POLL_MS = 2000;
const recounting = (list: ConversionGoal[] | undefined) =>
  (list ?? []).some((g) => g.recompute !== null && g.recompute.state !== "done");
export const useConversionGoalList = () =>
  useQuery({
    queryKey: conversionGoalKeys.list,
    queryFn: () => call(api.GET("/api/conversion-goals")),
    refetchInterval: (q) => (recounting(q.state.data) ? RECOUNT_POLL_MS : false),
  });
export const useBeliefs = () =>
  useQuery({ queryKey: beliefKeys.list, queryFn: () => call(api.GET("/api/beliefs")) });
export const useBelief = (id: string) =>
  useQuery({
    queryKey: beliefKeys.detail(id),
    queryFn: () => call(api.GET("/api/beliefs/{id}", { params: { path: { id } } })),
  });

export type Goal = paths["/api/goals"]["get"]["responses"]["200"]["content"]["application/json"][number];
export type GoalStatus = Goal["status"];

export const STATUS_LABEL: Record<GoalStatus, string> = {
  on_track: "On track",
  at_risk: "At risk",
  behind: "Behind",
  completed: "Completed",
};

/** The built-in metrics the API tracks (a conversion goal's name is a metric too). */
export const BUILT_IN_METRICS = [
  "visitors",
  "leads",
  "conversions",
  "revenue",
  "conversion_rate",
  "signups",
  "mrr",
  "payments_revenue",
  "crm_revenue",
];

export const formatValue = (n: number, unit: string | null) =>
  `${n.toLocaleString(undefined, { maximumFractionDigits: 2 })}${unit ? ` ${unit}` : ""}`;

export const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** "counted since 1 Mar 2025" — a goal's startDate (a date or date-time), as a day. */
export const sinceText = (startDate: string) =>
  `counted since ${new Date(
    startDate.length === 10 ? `${startDate}T00:00:00Z` : startDate,
  ).toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" })}`;
