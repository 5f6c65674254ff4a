import type { GoalStatus } from "./schema.js";

/** Metrics that are levels (a value now), not counts accumulated since the goal started. */
const LEVEL_METRICS = new Set(["mrr", "conversion_rate"]);
const MIN_ELAPSED_MS = 3_600_000;
const DAY = 86_400_000;

/**
 * Status from pace (DESIGN.md): the value projected at the deadline against the target —
 * ≥100% on_track, ≥80% at_risk, else behind; completed once the target is reached. Counts are
 * projected linearly from the goal's start (its startDate); levels are taken as they are.
 * Nothing counted is never on track once counting has started, its first moment included (issue
 * 34: a new goal showed "0 / 60,000 — On track"): at_risk while it is too early to project,
 * behind after.
 */
export function paceStatus(
  goal: { metric: string; target: number; current: number; startedAt: number; deadline: number },
  now: number,
): GoalStatus {
  if (goal.current >= goal.target) return "completed";
  // Counting has not started (a startDate ahead): nothing to judge.
  if (now < goal.startedAt) return "on_track";
  // Too early to project: the first tenth of the goal's duration, at most a day.
  if (now - goal.startedAt < Math.min(DAY, (goal.deadline - goal.startedAt) / 10))
    return goal.current > 0 ? "on_track" : "at_risk";
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

/** A start: an ISO 8601 date (the start of that UTC day) or date-time; null when it is neither. */
export function parseStart(value: string): number | null {
  const end = parseDeadline(value);
  if (end === null) return null;
  return /T/.test(value) ? end : end - 86_400_000 + 1;
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
