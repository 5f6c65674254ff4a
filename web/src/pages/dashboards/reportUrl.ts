import { trendParamsOf } from "../trends/url";

/**
 * The report page showing a saved insight: its settings as that page keeps them in its URL
 * (period, filter and the report's own), so "Open" reproduces what was saved.
 */
export function reportUrl(kind: string, settings: Record<string, unknown>): string {
  const q = new URLSearchParams();
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== null && value !== "") q.set(key, String(value));
  };
  set("period", settings.period);
  set("from", settings.from);
  set("to", settings.to);
  if (Array.isArray(settings.filter) && settings.filter.length > 0)
    q.set("filter", JSON.stringify(settings.filter));
  let path = "/";
  switch (kind) {
    case "breakdown":
      path = "/breakdowns";
      set("by", settings.by);
      break;
    case "funnel":
      path = "/funnels";
      q.set("steps", JSON.stringify(settings.steps ?? []));
      set("window", settings.windowDays);
      set("breakdown", settings.breakdownBy);
      break;
    case "retention":
      path = "/retention";
      set("interval", settings.interval);
      set("startEvent", settings.startEvent);
      set("returnEvent", settings.returnEvent);
      break;
    case "attribution":
      path = "/attribution";
      set("model", settings.model);
      break;
    case "trends":
      path = "/trends";
      for (const [k, v] of Object.entries(trendParamsOf(settings))) q.set(k, v);
      break;
    case "paths": {
      path = "/paths";
      const start = (settings.start ?? {}) as { event?: string; page?: string };
      set("event", start.event);
      set("page", start.page);
      set("direction", settings.direction);
      set("steps", settings.steps);
      break;
    }
  }
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}
