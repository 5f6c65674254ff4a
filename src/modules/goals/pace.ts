import type { GoalStatus } from "./schema.js";

/** Metrics that are levels (a value now), not counts accumulated since the goal started. */
const LEVEL_METRICS = new Set(["mrr", "conversion_rate"]);
const MIN_ELAPSED_MS = 3_600_000;
const DAY = 86_400_000;

/**
 * Status from pace (DESIGN.md): the value projected at the deadline against the target —
 * ≥100% on_track, ≥80% at_risk, else behind; completed once the target is reached. Counts are
 * projected linearly from the goal's start; levels are taken as they are.
 */
export function paceStatus(
  goal: { metric: string; target: number; current: number; startedAt: number; deadline: number },
  now: number,
): GoalStatus {
  if (goal.current >= goal.target) return "completed";
  // Too early to judge pace: the first tenth of the goal's duration, at most a day.
  if (now - goal.startedAt < Math.min(DAY, (goal.deadline - goal.startedAt) / 10)) return "on_track";
  let projected = goal.current;
  if (!LEVEL_METRICS.has(goal.metric)) {
    const total = Math.max(goal.deadline - goal.startedAt, MIN_ELAPSED_MS);
    const elapsed = Math.min(Math.max(now - goal.startedAt, MIN_ELAPSED_MS), total);
    projected = (goal.current * total) / elapsed;
  }
  if (goal.target <= 0) return "on_track";
  const ratio = projected / goal.target;
  return ratio >= 1 ? "on_track" : ratio >= 0.8 ? "at_risk" : "behind";
}

/** Parses an ISO 8601 date or date-time; a date alone means the end of that day (UTC). */
export function parseDeadline(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(T.+)?$/.exec(value);
  if (!m) return null;
  const [, y, mo, d, time] = m;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (
    date.getUTCFullYear() !== Number(y) ||
    date.getUTCMonth() !== Number(mo) - 1 ||
    date.getUTCDate() !== Number(d)
  )
    return null;
  if (!time) return date.getTime() + 86_400_000 - 1;
  if (!/^T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(time)) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}
