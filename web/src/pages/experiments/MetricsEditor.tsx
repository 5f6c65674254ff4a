import { SelectField } from "../../components/Field";
import type { Experiment } from "./model";

export interface MetricsDraft {
  /** "" = any of the conversion goals; SEVERAL = the several goals set through the API. */
  primary: string;
  secondary: string[];
  guardrails: { goal: string; worseWhen: "lower" | "higher" }[];
}

export const SEVERAL = "several";
export const blankMetrics: MetricsDraft = { primary: "", secondary: [], guardrails: [] };

export const metricsFrom = (e: Pick<Experiment, "metrics" | "conversionGoalIds">): MetricsDraft => ({
  primary: e.metrics.primary ?? ((e.conversionGoalIds?.length ?? 0) > 1 ? SEVERAL : ""),
  secondary: e.metrics.secondary,
  guardrails: e.metrics.guardrails,
});

type Role = "" | "secondary" | "guardrail-lower" | "guardrail-higher";

const ROLES: { value: Role; label: string }[] = [
  { value: "", label: "Not measured" },
  { value: "secondary", label: "Secondary (reported)" },
  { value: "guardrail-lower", label: "Guardrail: worse when lower" },
  { value: "guardrail-higher", label: "Guardrail: worse when higher" },
];

const roleOf = (m: MetricsDraft, goal: string): Role => {
  if (m.secondary.includes(goal)) return "secondary";
  const g = m.guardrails.find((x) => x.goal === goal);
  return g ? `guardrail-${g.worseWhen}` : "";
};

const withRole = (m: MetricsDraft, goal: string, role: Role): MetricsDraft => {
  const secondary = m.secondary.filter((g) => g !== goal);
  const guardrails = m.guardrails.filter((g) => g.goal !== goal);
  if (role === "secondary") secondary.push(goal);
  if (role === "guardrail-lower" || role === "guardrail-higher")
    guardrails.push({ goal, worseWhen: role === "guardrail-lower" ? "lower" : "higher" });
  return { ...m, secondary, guardrails };
};

/** The primary goal the experiment is decided on, and each other goal's role. */
export function MetricsEditor({
  goals,
  value,
  onChange,
  several,
  primaryLocked,
}: {
  goals: { id: string; name: string }[];
  value: MetricsDraft;
  onChange: (m: MetricsDraft) => void;
  /** Names of the goals when several were set as the primary conversion through the API. */
  several: string[];
  /** The experiment has run: its primary goal is fixed (the API refuses a change with 409). */
  primaryLocked: boolean;
}) {
  const setPrimary = (primary: string) =>
    // A goal is primary or has another role, not both.
    onChange({ ...withRole(value, primary, ""), primary });
  const others = goals.filter((g) => g.id !== value.primary);
  return (
    <fieldset className="variants">
      <legend>Goals</legend>
      {goals.length === 0 ? (
        <p className="muted">
          No conversion goals yet: the experiment counts no conversions until one exists. Add goals under
          Goals to pick them here.
        </p>
      ) : (
        <>
          <SelectField
            label="Primary goal (decides the experiment)"
            value={value.primary}
            onChange={(e) => setPrimary(e.target.value)}
            disabled={primaryLocked}
            options={[
              { value: "", label: "Any of the conversion goals" },
              ...(several.length > 1 ? [{ value: SEVERAL, label: `Any of: ${several.join(", ")}` }] : []),
              ...goals.map((g) => ({ value: g.id, label: g.name })),
            ]}
          />
          {primaryLocked && <p className="muted">The primary goal is fixed once the experiment has run.</p>}
          <p className="muted">
            Secondary goals are reported beside the primary one. A guardrail blocks a variant's automatic win
            when the variant is significantly worse on it.
          </p>
          <div className="form-row">
            {others.map((g) => (
              <SelectField
                key={g.id}
                label={g.name}
                value={roleOf(value, g.id)}
                onChange={(e) => onChange(withRole(value, g.id, e.target.value as Role))}
                options={ROLES}
              />
            ))}
          </div>
        </>
      )}
    </fieldset>
  );
}

/** The `metrics` body of a create, or of an update with only what changed (undefined: nothing did). */
export function metricsBody(draft: MetricsDraft, before?: MetricsDraft) {
  const primary = draft.primary === SEVERAL ? undefined : draft.primary || null;
  if (!before) return { primary, secondary: draft.secondary, guardrails: draft.guardrails };
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const body = {
    ...(draft.primary !== before.primary ? { primary } : {}),
    ...(same(draft.secondary, before.secondary) ? {} : { secondary: draft.secondary }),
    ...(same(draft.guardrails, before.guardrails) ? {} : { guardrails: draft.guardrails }),
  };
  return Object.keys(body).length > 0 ? body : undefined;
}
