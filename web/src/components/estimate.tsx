import type { ReactNode } from "react";

/** What the API puts beside a count that is an estimate (`visitorsEstimate`); exact counts have none. */
export interface Estimate {
  relativeError: number;
  confidence: number;
}

/** The bound in words: "Estimated: within ±4.2% for 99% of counts". */
export function estimateNote(e: Estimate): string {
  const share = `${Math.round(e.confidence * 100)}%`;
  return `Estimated: within ±${(e.relativeError * 100).toFixed(1)}% for ${share} of counts`;
}

/** A count as plain text: "≈12,345" when it is an estimate (legends, sentences). */
export function countText(n: number, e: Estimate | undefined): string {
  return `${e ? "≈" : ""}${n.toLocaleString()}`;
}

/**
 * A number on a page: an estimate is marked "≈" with its bound as a tooltip, and said to screen
 * readers; an exact one is the number alone.
 */
export function Approx({ estimate, children }: { estimate: Estimate | undefined; children: ReactNode }) {
  if (!estimate) return <>{children}</>;
  const note = estimateNote(estimate);
  return (
    <span className="estimate" title={note} data-estimate="">
      <span aria-hidden="true">≈</span>
      {children}
      <span className="visually-hidden"> ({note.toLowerCase()})</span>
    </span>
  );
}

/** A count in a table cell or tile: `Approx` around its locale text. */
export function Count({ n, estimate }: { n: number; estimate: Estimate | undefined }) {
  return <Approx estimate={estimate}>{n.toLocaleString()}</Approx>;
}
