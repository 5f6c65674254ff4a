import type { paths } from "../../api/schema";

export type Experiment =
  paths["/api/experiments/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
export type Status = Experiment["status"];
export type Mode = Experiment["mode"];

export const STATUSES: Status[] = ["draft", "running", "paused", "completed"];
export const MODES: { value: Mode; label: string }[] = [
  { value: "ab", label: "A/B test" },
  { value: "multivariate", label: "Multivariate" },
  { value: "bandit", label: "Bandit (shifts traffic to the best variant)" },
];

/**
 * The moves the API allows from each status (it refuses the others with INVALID_TRANSITION):
 * mirrored here only to offer the right buttons.
 */
export const MOVES: Record<Status, { to: Status; label: string }[]> = {
  draft: [{ to: "running", label: "Start" }],
  running: [
    { to: "paused", label: "Pause" },
    { to: "completed", label: "Complete" },
  ],
  paused: [
    { to: "running", label: "Resume" },
    { to: "completed", label: "Complete" },
  ],
  completed: [],
};

export const percent = (n: number | null | undefined, digits = 1) =>
  n === null || n === undefined ? "—" : `${(n * 100).toFixed(digits)}%`;

export const signedPercent = (n: number | null | undefined) =>
  n === null || n === undefined ? "—" : `${n > 0 ? "+" : n < 0 ? "−" : "±"}${Math.abs(n * 100).toFixed(1)}%`;

export const experimentsKey = (id?: string) => (id ? ["experiments", id] : ["experiments"]);
