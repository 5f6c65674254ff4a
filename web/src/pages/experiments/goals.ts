import { useConversionGoalList } from "../goals/model";

/** The project's conversion goals (shared cache with the Goals page) and a name for each id. */
export function useConversionGoals() {
  const goals = useConversionGoalList();
  const names = new Map((goals.data ?? []).map((g) => [g.id, g.name]));
  // An id the list lacks (deleted goal, or the list still loading) shows as itself.
  const nameOf = (id: string) => names.get(id) ?? id;
  return { goals, nameOf };
}
