const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

interface Step {
  index: number;
  label: string;
  count: number;
  conversionFromPrevious: number;
  conversionFromStart: number;
}

/**
 * The funnel as bars: each step's people as a share of those who entered, and between two steps
 * how many dropped off. Plain elements, so the figures are text a screen reader reads in order.
 */
export function FunnelBars({ steps }: { steps: Step[] }) {
  const entered = steps[0]?.count ?? 0;
  return (
    <ol className="funnel-bars" aria-label="Funnel steps as bars">
      {steps.map((s, i) => {
        const dropped = i > 0 ? steps[i - 1]!.count - s.count : 0;
        return (
          <li key={s.index} className="funnel-step" data-testid="funnel-step">
            {i > 0 && (
              <div className="funnel-drop" data-testid="funnel-drop">
                ↓ {dropped.toLocaleString()} dropped off ({percent(1 - s.conversionFromPrevious)})
              </div>
            )}
            <div className="funnel-label">
              <span className="break-all">
                {i + 1}. {s.label}
              </span>
              <span className="funnel-figure">
                {s.count.toLocaleString()} {s.count === 1 ? "person" : "people"}
                {i > 0 ? ` · ${percent(s.conversionFromStart)} of entrants` : ""}
              </span>
            </div>
            <div className="bar-track" aria-hidden="true">
              <div
                className="bar-fill"
                style={{
                  width: `${entered > 0 ? Math.max((s.count / entered) * 100, s.count > 0 ? 0.5 : 0) : 0}%`,
                }}
              />
            </div>
          </li>
        );
      })}
    </ol>
  );
}
