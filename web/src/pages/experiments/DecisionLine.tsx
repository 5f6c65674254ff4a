import type { DecisionMethod, Experiment } from "./model";

/** What named (or, while it runs, will name) the outcome, in words. */
export const METHOD_TEXT: Record<DecisionMethod, string> = {
  sequential: "Sequential test (safe to check any time)",
  "fixed-horizon": "Fixed-horizon figures (stopped by hand)",
  bandit: "Bandit: probability of being best",
  manual: "Stopped by hand, no winner",
};

const UPCOMING: Record<DecisionMethod, string> = {
  sequential: "Decides by: sequential test",
  "fixed-horizon": "Decides by: fixed-horizon figures",
  bandit: "Decides by: bandit's probability of being best (a stop names a winner at 95%)",
  manual: "Decides by: a stop by hand",
};

/** The decision line: the method, and the winner and when once completed. */
export function DecisionLine({ experiment: e }: { experiment: Experiment }) {
  const d = e.results.decision;
  const completed = e.status === "completed";
  return (
    <p data-testid="decision">
      <strong>Decision:</strong>{" "}
      <span data-testid="decision-method">{completed ? METHOD_TEXT[d.method] : UPCOMING[d.method]}</span>
      {completed && d.winner && (
        <>
          {" "}
          · winner <strong data-testid="decision-winner">{d.winner}</strong>
        </>
      )}
      {completed && d.decidedAt && (
        <>
          {" "}
          · <time dateTime={d.decidedAt}>{new Date(d.decidedAt).toLocaleString()}</time>
        </>
      )}
      {completed && e.completionReason && (
        <span className="muted">
          {" "}
          ({e.completionReason === "manual" ? "completed by hand" : "completed automatically"})
        </span>
      )}
    </p>
  );
}
