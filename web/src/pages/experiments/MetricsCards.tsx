import { DataTable } from "../../components/DataTable";
import { Card } from "../../components/states";
import {
  type Experiment,
  formatConfidence,
  type GuardrailStatus,
  percent,
  pText,
  signedPercent,
} from "./model";

const BADGE: Record<GuardrailStatus, string> = {
  ok: "badge status-active",
  warning: "badge status-warning",
  failing: "badge status-failed",
};

/** Each guardrail goal against each challenger: ok, warning (single look only) or failing. */
export function GuardrailsCard({
  experiment: e,
  nameOf,
}: {
  experiment: Experiment;
  nameOf: (goalId: string) => string;
}) {
  const worseWhen = new Map(e.metrics.guardrails.map((g) => [g.goal, g.worseWhen]));
  return (
    <Card title="Guardrails">
      <p className="muted">
        A failing guardrail (the sequential test finds the variant significantly worse on it) blocks that
        variant's automatic win; a warning means only the fixed-horizon test does.
      </p>
      <DataTable
        caption="Guardrails per variant"
        rows={e.results.guardrails}
        rowKey={(g) => `${g.goal}/${g.variant}`}
        rowTestId="guardrail-row"
        columns={[
          {
            header: "Goal",
            cell: (g) => (
              <>
                {nameOf(g.goal)}
                {worseWhen.has(g.goal) && (
                  <span className="muted"> (worse when {worseWhen.get(g.goal)})</span>
                )}
              </>
            ),
          },
          { header: "Variant", cell: (g) => g.variant },
          {
            header: "Status",
            cell: (g) => (
              <span className={BADGE[g.status]} data-testid="guardrail-status">
                {g.status}
              </span>
            ),
          },
        ]}
      />
    </Card>
  );
}

type Secondary = Experiment["results"]["secondary"][number];

/** Goals reported beside the primary one; they never decide. */
export function SecondaryCard({
  experiment: e,
  nameOf,
}: {
  experiment: Experiment;
  nameOf: (goalId: string) => string;
}) {
  const control = e.results.control;
  return (
    <Card title="Secondary metrics">
      <p className="muted">
        Reported for context; they never decide the experiment. p-values are fixed-horizon.
      </p>
      {e.results.secondary.map((s: Secondary) => (
        <div key={s.goal} data-testid="secondary-metric">
          <h3>{nameOf(s.goal)}</h3>
          <DataTable
            caption={`Secondary metric ${nameOf(s.goal)} per variant`}
            rows={s.variants}
            rowKey={(v) => v.name}
            columns={[
              { header: "Variant", cell: (v) => (v.name === control ? `${v.name} (control)` : v.name) },
              {
                header: "Conversions",
                numeric: true,
                cell: (v) => v.conversions.toLocaleString(),
                csv: (v) => v.conversions,
              },
              {
                header: "Rate",
                numeric: true,
                cell: (v) => percent(v.conversionRate, 2),
                csvHeader: "Rate (fraction)",
                csv: (v) => v.conversionRate,
              },
              {
                header: "Uplift",
                numeric: true,
                cell: (v) => (v.name === control ? "—" : signedPercent(v.uplift)),
                csvHeader: "Uplift (fraction)",
                csv: (v) => (v.name === control ? null : v.uplift),
              },
              {
                header: "p-value",
                numeric: true,
                cell: (v) => (v.name === control ? "—" : pText(v.pValue)),
                csv: (v) => (v.name === control ? null : v.pValue),
              },
            ]}
          />
        </div>
      ))}
    </Card>
  );
}

/** A bandit's posterior probability that each arm is best, with what its figures mean. */
export function BanditCard({ experiment: e }: { experiment: Experiment }) {
  const b = e.results.bandit;
  if (!b) return null;
  const rows = e.variants.map((v, i) => ({ name: v.name, p: b.probabilityBest[i] ?? 0 }));
  return (
    <Card title="Probability of being best">
      <p className="muted" data-testid="bandit-note">
        {b.note}
      </p>
      <DataTable
        caption="Probability that each arm is best"
        rows={rows}
        rowKey={(r) => r.name}
        columns={[
          { header: "Arm", cell: (r) => r.name },
          {
            header: "Probability of being best",
            numeric: true,
            cell: (r) => <span data-testid="probability-best">{formatConfidence(r.p)}</span>,
            csvHeader: "Probability of being best (fraction)",
            csv: (r) => r.p,
          },
        ]}
      />
    </Card>
  );
}
