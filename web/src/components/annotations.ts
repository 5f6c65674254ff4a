import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { api, call } from "../api/client";
import type { Mark } from "./chart-props";

/** Every annotation query sits under `all`: a new note refreshes each chart's range. */
export const annotationKeys = {
  all: ["annotations"] as const,
  range: (from: string | undefined, to: string | undefined) => ["annotations", from, to] as const,
};

/** "4 Mar" (UTC): short enough for a legend line, unambiguous within a chart's range. */
export const shortDay = (iso: string) =>
  new Date(`${iso}T00:00:00Z`).toLocaleDateString(undefined, {
    day: "numeric",
    month: "short",
    timeZone: "UTC",
  });

/**
 * The project's annotations overlapping [from, to] (ISO dates), oldest first as a chart reads
 * them; every time chart asks, so a note made on one shows on all of its days' charts.
 */
export function useAnnotations(from: string | undefined, to: string | undefined, enabled = true) {
  const q = useQuery({
    queryKey: annotationKeys.range(from, to),
    enabled: enabled && !!from && !!to,
    queryFn: () => call(api.GET("/api/annotations", { params: { query: { from: from!, to: to! } } })),
    staleTime: 30_000,
  });
  // One array per answer: the chart is rebuilt when the annotations change, not on every render.
  const marks: Mark[] = useMemo(
    () => (q.data ?? []).map((a) => ({ id: a.id, date: a.date, endDate: a.endDate, text: a.text })).reverse(),
    [q.data],
  );
  return { marks, isError: q.isError };
}
