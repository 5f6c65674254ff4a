/** One headline number with its change against the previous period of the same length. */
export function StatTile({
  label,
  value,
  previous,
  format = (n) => n.toLocaleString(),
}: {
  label: string;
  value: number;
  previous?: number;
  format?: (n: number) => string;
}) {
  let change: { text: string; tone: string; spoken: string } | null = null;
  if (previous !== undefined) {
    if (previous === 0) {
      change =
        value === 0
          ? { text: "no change", tone: "flat", spoken: "no change" }
          : { text: "new", tone: "up", spoken: "none in the previous period" };
    } else {
      const pct = ((value - previous) / previous) * 100;
      const rounded = Math.abs(pct) < 10 ? pct.toFixed(1) : pct.toFixed(0);
      const tone = pct > 0 ? "up" : pct < 0 ? "down" : "flat";
      const text = `${pct > 0 ? "+" : pct < 0 ? "−" : "±"}${rounded.replace("-", "")}%`;
      change = {
        text,
        tone,
        spoken: `${tone === "up" ? "up" : tone === "down" ? "down" : "no change"} ${rounded.replace("-", "")}% on the previous period`,
      };
    }
  }
  return (
    <div className="tile">
      <div className="tile-label">{label}</div>
      <div className="tile-value">{format(value)}</div>
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
