import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";

/** The project's conversion goals (shared cache with the Goals page) and a name for each id. */
export function useConversionGoals() {
  const goals = useQuery({
    queryKey: ["conversion-goals", "list"],
    queryFn: () => call(api.GET("/api/conversion-goals")),
  });
  const names = new Map((goals.data ?? []).map((g) => [g.id, g.name]));
  // An id the list lacks (deleted goal, or the list still loading) shows as itself.
  const nameOf = (id: string) => names.get(id) ?? id;
  return { goals, nameOf };
}
