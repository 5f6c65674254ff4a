import { Type } from "@sinclair/typebox";
import { ESTIMATE_CONFIDENCE, ESTIMATE_ERROR, STORED_EXACT, UNION_EXACT } from "../ingest/hll.js";

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * Beside each distinct-visitor count read from the rollups' sketches: present only when that count
 * is an estimate (hll.ts); the filtered reports count visitor ids and never carry it.
 */
export const VisitorsEstimate = Type.Optional(
  Type.Object(
    {
      estimated: Type.Literal(true),
      relativeError: Type.Number({
        description: `the bound, as a fraction of the count: ${percent(ESTIMATE_CONFIDENCE)} of estimates are within ± this of the true count (${ESTIMATE_ERROR} = ±${percent(ESTIMATE_ERROR)}, measured from 100 to 1M visitors; bench/README.md)`,
      }),
      confidence: Type.Number({
        description: `the share of estimates within the bound (${ESTIMATE_CONFIDENCE})`,
      }),
    },
    {
      description: `present only when \`visitors\` beside it is an estimate. Counts are exact (no \`visitorsEstimate\`) up to ${STORED_EXACT.toLocaleString("en")} visitors in each stored day or week × key, and up to ${UNION_EXACT.toLocaleString("en")} over a report's union of exact rows; past that a HyperLogLog sketch of 4,096 registers estimates them`,
    },
  ),
);
