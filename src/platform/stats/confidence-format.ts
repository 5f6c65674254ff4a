/**
 * A confidence or a probability as the page shows it: one decimal, and never rounded up to 100%
 * (a test 99.96% sure is not certain). The verdict's text and the dashboard's tile and table all
 * use this one function, so the banner and the table never disagree.
 *
 * No imports: the dashboard (web/src/pages/experiments/model.ts) runs this same function.
 */
export function formatConfidence(x: number): string {
  const clamped = Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
  const tenths = clamped === 1 ? 1000 : Math.min(999, Math.round(clamped * 1000));
  return `${(tenths / 10).toFixed(1)}%`;
}
