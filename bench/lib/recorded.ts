import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Hot-path ratios as last recorded in bench/README.md (bench/recorded.json), so `npm run bench`
 * says the day a change makes one slower. Ratios, not rates: both sides of each are measured in
 * the same run, so a busier or quieter machine moves them far less than it moves req/s.
 */
const FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "recorded.json");

interface Recorded {
  /** The ratio recorded, and when and with what command (for the reader of a failure). */
  ratio: number;
  recorded: string;
}

// Below this share of the recorded ratio it is a regression, not noise: round-to-round spread of
// these ratios on the shared 2-core machine has stayed within ±15% (bench/README.md).
const TOLERANCE = 0.8;

/**
 * Prints `name: ratio X against recorded Y` and sets a failing exit code when X is below
 * TOLERANCE × Y. A ratio with nothing recorded is printed as new.
 */
export function compareWithRecorded(name: string, ratio: number): boolean {
  const all = JSON.parse(readFileSync(FILE, "utf8")) as Record<string, Recorded>;
  const was = all[name];
  if (!was) {
    console.log(
      `[recorded] ${name}: ${ratio.toFixed(2)} (nothing recorded yet: add it to bench/recorded.json)`,
    );
    return true;
  }
  const share = ratio / was.ratio;
  const ok = share >= TOLERANCE;
  const line = `[recorded] ${name}: ${ratio.toFixed(2)} against ${was.ratio.toFixed(2)} recorded ${was.recorded} (${(100 * share).toFixed(0)}%)`;
  if (ok) console.log(`${line}: ok`);
  else {
    console.error(`${line}: REGRESSION, below ${(100 * TOLERANCE).toFixed(0)}% of the recorded ratio`);
    process.exitCode = 1;
  }
  return ok;
}
