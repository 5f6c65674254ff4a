import type { ApiData } from "../../api/client";

/** The alerts area's query keys. */
export const alertKeys = {
  all: ["alerts"] as const,
  list: ["alerts", "list"] as const,
  firings: (id: string) => ["alerts", "firings", id] as const,
};

export type Alert = ApiData<"/api/alerts", "get">["items"][number];
export type Condition = Alert["condition"];

const fmt = (v: number | null) => (v === null ? "no value" : v.toLocaleString());

/** "below 3", "down 30% or more": the condition as the alert's mail words it. */
export function conditionText(c: Condition): string {
  if (c.kind === "above") return `above ${fmt(c.value)}`;
  if (c.kind === "below") return `below ${fmt(c.value)}`;
  const dir = c.direction === "either" ? "up or down" : c.direction;
  return `${dir} ${c.percent}% or more from the bucket before`;
}

/** "signup (unique people) per day". */
export function seriesText(a: Alert): string {
  const s = a.query.series[0]!;
  const measure =
    s.measure && s.measure !== "total"
      ? ` (${s.measure.replace("_", " ")}${s.property ? ` of ${s.property}` : ""})`
      : "";
  return `${s.name ?? s.event}${measure} per ${a.query.interval}`;
}
