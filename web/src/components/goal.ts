import { useSearchParams } from "react-router";

/**
 * The page's conversion goal, kept in the URL (`?goal=cgoal_…`) so links and saved insights keep
 * it; undefined is "any conversion goal", the API's default.
 */
export function useGoal(): [string | undefined, (next: string | undefined) => void] {
  const [params, setParams] = useSearchParams();
  const value = params.get("goal") || undefined;
  const set = (next: string | undefined) =>
    setParams(
      (prev) => {
        const out = new URLSearchParams(prev);
        if (next) out.set("goal", next);
        else out.delete("goal");
        return out;
      },
      { replace: true },
    );
  return [value, set];
}

/** One sentence for a view's help text: what its conversions and rates are. */
export const CONVERSION_MODEL =
  "A conversion is an event matching the chosen conversion goal (or any of them); the conversion rate is the share of the period's visitors who converted, and per channel both sides count visitors by where they first came from.";
