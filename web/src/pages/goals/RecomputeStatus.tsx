import type { ConversionGoal } from "./model";

/**
 * Whether a conversion goal's numbers include the events stored before it: the recount a job runs
 * after the goal is created or what it matches changes, with its progress while it runs.
 */
export function RecomputeStatus({ goal }: { goal: ConversionGoal }) {
  const r = goal.recompute;
  if (!r) return <span className="small muted">Counts events received since it was created</span>;
  if (r.state === "queued") return <span className="small muted">History recount queued…</span>;
  const events = `${r.processed.toLocaleString()} stored event${r.processed === 1 ? "" : "s"}`;
  if (r.state === "done")
    return (
      <span className="small" data-testid="recompute-status">
        Counted from history ({events} of its type)
      </span>
    );
  const percent = Math.round(r.progress * 100);
  return (
    <div className="progress-cell">
      <progress max={1} value={r.progress} aria-label={`Recounting ${goal.name} from history: ${percent}%`} />
      <span className="small" data-testid="recompute-status">
        Recounting history: {percent}% ({events} so far)
      </span>
    </div>
  );
}
