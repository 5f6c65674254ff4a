import { useEffect, useState } from "react";
import { computedAgo } from "./computed";

/** The time now, again every `ms`: a relative time stays true while the page is open. */
function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * "Computed 3 minutes ago" and Refresh: the server keeps a dashboard's results (a minute as they
 * are, then recomputed in the background), and Refresh asks it to compute them now.
 */
export function ComputedNote({
  computedAt,
  refreshing,
  onRefresh,
}: {
  computedAt: string;
  refreshing: boolean;
  onRefresh: () => void;
}) {
  const now = useNow(15_000);
  return (
    <p className="muted small period-note">
      Computed{" "}
      <time dateTime={computedAt} title={new Date(computedAt).toLocaleString()}>
        {computedAgo(computedAt, now)}
      </time>
      .{" "}
      <button
        type="button"
        className="button small secondary"
        onClick={onRefresh}
        disabled={refreshing}
        aria-busy={refreshing}
      >
        {refreshing ? "Refreshing…" : "Refresh"}
      </button>
    </p>
  );
}
