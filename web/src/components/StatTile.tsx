import type { ReactNode } from "react";
import { type ChangeKind, changeOf } from "./change";
import { Approx, type Estimate } from "./estimate";

/** One headline number with its change against the previous period of the same length. */
export function StatTile({
  label,
  value,
  previous,
  format = (n) => n.toLocaleString(),
  kind = "count",
  detail,
  estimate,
}: {
  label: string;
  value: number;
  previous?: number;
  format?: (n: number) => string;
  /** how the change is said (change.ts): counts and money by percent or absolute, rates in points */
  kind?: ChangeKind;
  /** a line under the number: what it counts */
  detail?: ReactNode;
  /** the API's `visitorsEstimate`: the number is shown as an estimate, "≈" and its bound */
  estimate?: Estimate;
}) {
  const change = changeOf(value, previous, kind, format);
  return (
    <div className="tile">
      <div className="tile-label">{label}</div>
      <div className="tile-value">
        <Approx estimate={estimate}>{format(value)}</Approx>
      </div>
      {detail && <div className="tile-detail muted">{detail}</div>}
      {change && (
        <div className={`tile-change ${change.tone}`}>
          <span aria-hidden="true">{change.text}</span>
          <span className="visually-hidden">{change.spoken}</span>
          <span className="muted" aria-hidden="true">
            {" "}
            vs previous
          </span>
        </div>
      )}
    </div>
  );
}
