import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router";
import { api, call } from "../../api/client";
import type { paths } from "../../api/schema";
import type { Condition } from "../../components/filter";

export type WebBody = paths["/api/analytics/web"]["post"]["requestBody"]["content"]["application/json"];
export type WebAnswer =
  paths["/api/analytics/web"]["post"]["responses"]["200"]["content"]["application/json"];
export type WebListName = NonNullable<WebBody["lists"]>[number];
export type BreakdownKey = NonNullable<WebBody["breakdown"]>[number];
export type WebRow = NonNullable<WebAnswer["lists"]["pages"]>["rows"][number];

/** The web area's queries: one answer per request body (period, filter and goal are in it). */
export const webKeys = {
  all: ["web"] as const,
  result: (body: WebBody) => ["web", "result", body] as const,
};

export const useWeb = (body: WebBody) =>
  useQuery({
    queryKey: webKeys.result(body),
    queryFn: () => call(api.POST("/api/analytics/web", { body })),
  });

/**
 * The filter condition a clicked row adds: the visit's own key, the page whatever its query string
 * for pages (`page_no_query`: the lists' pages are URLs without query), the session's landing page
 * for entry pages, the landing URL's tag for UTM rows (`(none)` is "no such tag").
 */
export function conditionOf(list: WebListName, value: string): Condition {
  switch (list) {
    case "pages":
    case "exit_pages":
      return { key: "page_no_query", op: "is", value };
    case "entry_pages":
      return { key: "landing_page", op: "is", value };
    case "sources":
      return { key: "source", op: "is", value };
    case "channels":
      return { key: "channel", op: "is", value };
    case "countries":
      return { key: "country", op: "is", value };
    case "devices":
      return { key: "device", op: "is", value };
    case "browsers":
      return { key: "browser", op: "is", value };
    case "os":
      return { key: "os", op: "is", value };
    default:
      // utm_source … utm_content: filter keys of the same name.
      return { key: list, op: "is", value };
  }
}

/** A URL parameter of the page (a tab, the breakdown), kept so a link or a reload shows the same. */
export function useParam<T extends string>(
  name: string,
  allowed: readonly T[],
  fallback: T,
): [T, (v: T) => void] {
  const [params, setParams] = useSearchParams();
  const raw = params.get(name);
  const value = allowed.includes(raw as T) ? (raw as T) : fallback;
  const set = (next: T) =>
    setParams(
      (prev) => {
        const out = new URLSearchParams(prev);
        if (next === fallback) out.delete(name);
        else out.set(name, next);
        return out;
      },
      { replace: true },
    );
  return [value, set];
}
