import { useQuery } from "@tanstack/react-query";
import { api, call } from "../api/client";
import { analyticsKeys } from "./analyticsKeys";
import type { PeriodQuery } from "./period";

import { moneyFormat } from "./money";
/**
 * Money as the period's summary names its currency, for tables whose own answer carries none
 * (attribution, breakdowns, goals, leads): the same summary the overview asks for, so it is
 * usually cached. Until it answers, and when currencies are mixed, the plain number.
 */
export function useRevenueMoney(
  period: PeriodQuery = { period: "90d" },
  filter?: string,
  goal?: string,
): (n: number) => string {
  const summary = useQuery({
    queryKey: analyticsKeys.summary(period, filter, goal),
    queryFn: () =>
      call(api.GET("/api/analytics/summary", { params: { query: { ...period, filter, goal } } })),
    staleTime: 60_000,
  });
  return moneyFormat(summary.data?.revenueCurrency ?? null, { cents: true });
}
