import { Approx, type Estimate } from "../../components/estimate";

interface Row {
  key: string;
  visitors: number;
  visitorsEstimate?: Estimate;
  conversions: number;
}

const SHOWN = 12;
const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/**
 * Bars per value: visitors, with the conversions credited to the value as a darker bar over them
 * (on the same scale). The figures are text beside each bar; the table below has every column.
 */
export function BreakdownBars({ rows, label }: { rows: Row[]; label: string }) {
  const shown = rows.slice(0, SHOWN);
  const max = Math.max(1, ...shown.map((r) => Math.max(r.visitors, r.conversions)));
  const width = (n: number) => `${n > 0 ? Math.max((n / max) * 100, 0.5) : 0}%`;
  return (
    <figure className="breakdown-bars" aria-label={`Visitors and conversions by ${label.toLowerCase()}`}>
      <ol>
        {shown.map((r) => (
          <li key={r.key} data-testid="breakdown-bar">
            <div className="funnel-label">
              <span className="break-all">{r.key}</span>
              <span className="funnel-figure">
                <Approx estimate={r.visitorsEstimate}>{count(r.visitors, "visitor", "visitors")}</Approx> ·{" "}
                {count(r.conversions, "conversion", "conversions")}
              </span>
            </div>
            <div className="bar-track" aria-hidden="true">
              <div className="bar-fill" style={{ width: width(r.visitors) }} />
              <div className="bar-fill conversions" style={{ width: width(r.conversions) }} />
            </div>
          </li>
        ))}
      </ol>
      <figcaption className="legend">
        <span className="legend-item">
          <span className="swatch bar-swatch" aria-hidden="true" /> Visitors
        </span>
        <span className="legend-item">
          <span className="swatch bar-swatch conversions" aria-hidden="true" /> Conversions
        </span>
        {rows.length > SHOWN && (
          <span>
            The {SHOWN} largest of {rows.length}; all are in the table.
          </span>
        )}
      </figcaption>
    </figure>
  );
}
