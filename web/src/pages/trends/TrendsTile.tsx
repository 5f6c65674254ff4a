import type { ApiData } from "../../api/client";
import { linesOf } from "./lines";
import { TrendsView } from "./TrendsView";

type Trends = ApiData<"/api/analytics/trends", "post">;

/** A saved trend on a dashboard: its lines as the Trends page draws them (the answer alone, no settings). */
export function TrendsTile({ name, r }: { name: string; r: Trends }) {
  const buckets = (r.series[0] ?? r.formulas[0])?.data.map((p) => p.bucket) ?? [];
  return (
    <TrendsView
      view="line"
      interval={r.interval}
      buckets={buckets}
      lines={linesOf(r, [], "", "")}
      label={`${name}: trends per ${r.interval}`}
      compact
    />
  );
}
