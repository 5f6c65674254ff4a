import type { Experiment } from "./model";
import { percent } from "./model";

/** How the verdict reads at a glance: a win, a warning, or still collecting. */
const TONE: Record<Experiment["results"]["verdict"]["state"], string> = {
  no_data: "info",
  collecting: "info",
  leading: "info",
  significant: "ok",
  won: "ok",
  no_winner: "info",
  srm: "error",
  bandit: "info",
};

/**
 * The experiment's outcome in words (the API's `results.verdict`, from the sequential test), the
 * one confidence figure the page shows, and the sample ratio check in every state.
 */
export function Verdict({ experiment: e }: { experiment: Experiment }) {
  const v = e.results.verdict;
  const srm = e.results.srm;
  return (
    <>
      <div className={`callout verdict ${TONE[v.state]}`} data-testid="verdict" data-state={v.state}>
        <strong data-testid="verdict-text">{v.text}</strong>
      </div>
      <p className="muted" data-testid="srm-check">
        Traffic split check:{" "}
        {!srm.checked
          ? "not run for bandits (their split changes by design)."
          : srm.pValue === null || e.results.totalExposures === 0
            ? "waiting for exposures."
            : srm.mismatch
              ? `failed (p = ${srm.pValue.toExponential(1)}) — see the warning below.`
              : `passed (p = ${srm.pValue < 0.001 ? "< 0.001" : srm.pValue.toFixed(2)}): exposures match the planned split.`}
      </p>
    </>
  );
}

/** The tile's figure and what it is. */
export const confidenceOf = (e: Experiment) => e.results.verdict.confidence;
export const confidenceLabel = (e: Experiment) =>
  e.mode === "bandit" ? "Probability best" : `Confidence (${percent(0.95, 0)} decides)`;
