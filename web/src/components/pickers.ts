import { useQuery } from "@tanstack/react-query";
import { useDeferredValue } from "react";
import { api, call } from "../api/client";
import { channelLabel } from "./channels";

/** The pickers' suggestions, cached a minute per key and prefix (the values change slowly). */
const pickerKeys = {
  values: (key: string, prefix: string) => ["pickers", "values", key, prefix] as const,
  properties: (scope: string, event: string, prefix: string) =>
    ["pickers", "properties", scope, event, prefix] as const,
  events: (prefix: string) => ["pickers", "events", prefix] as const,
};

export interface Suggestion {
  value: string;
  label?: string;
}

/** Values seen for a filter key (autocomplete), by prefix; none for property keys not chosen yet. */
export function useValueSuggestions(key: string, prefix: string): Suggestion[] {
  const p = useDeferredValue(prefix);
  const ready = key !== "" && key !== "event." && key !== "lead.";
  const q = useQuery({
    queryKey: pickerKeys.values(key, p),
    queryFn: () =>
      call(api.GET("/api/analytics/pickers/values", { params: { query: { key, prefix: p, limit: 20 } } })),
    enabled: ready,
    staleTime: 60_000,
  });
  const items = q.data?.items ?? [];
  return key === "channel" ? items.map((i) => ({ ...i, label: channelLabel(i.value) })) : items;
}

/** Property keys seen in events' data (of one type) or leads' properties. */
export function usePropertySuggestions(
  scope: "event" | "lead",
  prefix: string,
  event?: string,
): Suggestion[] {
  const p = useDeferredValue(prefix);
  const q = useQuery({
    queryKey: pickerKeys.properties(scope, event ?? "", p),
    queryFn: () =>
      call(
        api.GET("/api/analytics/pickers/property-keys", {
          params: { query: { scope, prefix: p, limit: 20, ...(event ? { event } : {}) } },
        }),
      ),
    staleTime: 60_000,
  });
  return q.data?.items ?? [];
}

/** Event names seen (the last 13 weeks). */
export function useEventSuggestions(prefix: string): Suggestion[] {
  const p = useDeferredValue(prefix);
  const q = useQuery({
    queryKey: pickerKeys.events(p),
    queryFn: () =>
      call(api.GET("/api/analytics/pickers/event-names", { params: { query: { prefix: p, limit: 20 } } })),
    staleTime: 60_000,
  });
  return q.data?.items ?? [];
}
