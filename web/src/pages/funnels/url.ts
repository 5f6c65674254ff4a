import { useSearchParams } from "react-router";
import { FUNNEL_DIMENSIONS, type FunnelDimension } from "../../components/dimensions";
import type { Condition } from "../../components/filter";
import type { PeriodQuery } from "../../components/period";
import { type StepDraft, stepConditions } from "./StepsEditor";

/** The funnel shown: what the page asked the API for. */
export interface FunnelShown {
  steps: StepDraft[];
  windowDays: number;
  breakdownBy: FunnelDimension | "";
}

/** A step as the API takes it (and as the URL keeps it). */
interface ApiStep {
  eventType: string;
  urlPattern?: string;
  conditions?: Record<string, string>;
}

const toApi = (s: StepDraft): ApiStep => ({
  eventType: s.eventType.trim(),
  ...(s.urlPattern.trim() ? { urlPattern: s.urlPattern.trim() } : {}),
  ...stepConditions(s),
});

const fromApi = (s: ApiStep): StepDraft => ({
  eventType: String(s.eventType ?? ""),
  urlPattern: String(s.urlPattern ?? ""),
  conditions: Object.entries(s.conditions ?? {}).map(
    ([k, v]): Condition => ({ key: `event.${k}`, op: "is", value: String(v) }),
  ),
});

function parseSteps(text: string | null): StepDraft[] | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as unknown;
    if (!Array.isArray(v) || v.length < 2) return null;
    return v.filter((s) => s && typeof s === "object" && "eventType" in s).map((s) => fromApi(s as ApiStep));
  } catch {
    return null;
  }
}

/**
 * The funnel in the URL (`?steps=[…]&window=14&breakdown=channel`, the steps as the API takes
 * them), so a reload or a shared link shows the same funnel; null until steps are given.
 */
export function useFunnelParams(): [FunnelShown | null, (next: FunnelShown) => void] {
  const [params, setParams] = useSearchParams();
  const steps = parseSteps(params.get("steps"));
  const window = Number(params.get("window") ?? "14");
  const breakdown: FunnelDimension | "" =
    FUNNEL_DIMENSIONS.find((d) => d.value === params.get("breakdown"))?.value ?? "";
  const windowDays = Number.isInteger(window) && window >= 1 && window <= 90 ? window : 14;
  const shown: FunnelShown | null =
    steps && steps.length >= 2 ? { steps, windowDays, breakdownBy: breakdown } : null;
  const set = (next: FunnelShown) =>
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      out.set("steps", JSON.stringify(next.steps.map(toApi)));
      out.set("window", String(next.windowDays));
      if (next.breakdownBy) out.set("breakdown", next.breakdownBy);
      else out.delete("breakdown");
      return out;
    });
  return [shown, set];
}

/** The API's request for the funnel shown: also the settings of a saved funnel insight. */
export const funnelBody = (shown: FunnelShown, period: PeriodQuery, filter: Condition[]) => ({
  ...period,
  windowDays: shown.windowDays,
  ...(filter.length > 0 ? { filter } : {}),
  ...(shown.breakdownBy ? { breakdownBy: shown.breakdownBy } : {}),
  steps: shown.steps.map(toApi),
});
