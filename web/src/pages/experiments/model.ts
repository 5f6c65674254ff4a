import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";
// The verdict's own formatter (a file without imports): the banner's text and the page's figures
// read the same number the same way.
import { formatConfidence } from "../../../../src/platform/stats/confidence-format.js";

export { formatConfidence };

export const fetchExperiment = (id: string) =>
  call(api.GET("/api/experiments/{id}", { params: { path: { id } } }));
/** An experiment as the client hands it over (openapi-fetch widens the schema's tuples to arrays). */
export type Experiment = Awaited<ReturnType<typeof fetchExperiment>>;
export type Status = Experiment["status"];
export type Mode = Experiment["mode"];
export type Runner = Experiment["runner"];

export const STATUSES: Status[] = ["draft", "running", "paused", "completed"];
/** Who shows the variants: fixed at creation (a flag's experiment has no page URL). */
export const RUNNERS: { value: Runner; label: string }[] = [
  { value: "snippet", label: "The snippet, on a page" },
  { value: "flag", label: "A feature flag, in your code" },
];
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

/** Query keys: every experiment query sits under `all`, so a save or a move refreshes them all. */
export const experimentKeys = {
  all: ["experiments"] as const,
  list: (status?: Status) => ["experiments", "list", status ?? "all"] as const,
  detail: (id: string) => ["experiments", id] as const,
  weights: (id: string) => ["experiments", id, "weights"] as const,
};

/** The project's experiments, optionally of one status (the list page; the flags' experiment picker). */
export const useExperimentList = (status?: Status) =>
  useQuery({
    queryKey: experimentKeys.list(status),
    queryFn: () => call(api.GET("/api/experiments", { params: { query: status ? { status } : {} } })),
  });

export type Results = Experiment["results"];
export type VariantResult = Results["variants"][number];
export type DecisionMethod = Results["decision"]["method"];
export type GuardrailStatus = Results["guardrails"][number]["status"];

export const pText = (p: number | null | undefined) =>
  p === null || p === undefined ? "—" : p < 0.001 ? "< 0.001" : p.toFixed(3);

/** An amount in the project's revenue unit (events carry plain numbers, no currency). */
export const money = (n: number) =>
  n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const signedMoney = (n: number) => `${n > 0 ? "+" : n < 0 ? "−" : "±"}${money(Math.abs(n))}`;

export const interval = (i: readonly number[] | null | undefined, f: (n: number) => string) =>
  i && i.length === 2 ? `${f(i[0]!)} to ${f(i[1]!)}` : "—";
