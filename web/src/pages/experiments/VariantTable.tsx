import type { ReactNode } from "react";
import { type GroupedColumn, GroupedTable } from "./GroupedTable";
import {
  formatConfidence,
  interval,
  money,
  percent,
  pText,
  type Results,
  signedMoney,
  signedPercent,
  type VariantResult,
} from "./model";

const FIXED = "Fixed-horizon (one look)";
const SEQUENTIAL = "Sequential (any look)";

/** A header on two lines: columns are as wide as their widest cell, headers included. */
const twoLines = (first: string, second: string) => (
  <>
    {first} <br />
    {second}
  </>
);

/** A figure with its 95% interval under it. */
const withInterval = (value: ReactNode, low: ReactNode, testId?: string) => (
  <>
    {value}
    <br />
    <small className="muted" data-testid={testId}>
      {low}
    </small>
  </>
);

/**
 * Per-variant results: the fixed-horizon figures (valid for one planned look), beside them the
 * sequential test that completes the experiment (valid at every look), then revenue per visitor.
 */
export function VariantTable({ results: r, bandit }: { results: Results; bandit: boolean }) {
  const isControl = (v: VariantResult) => v.name === r.control;
  const blocked = new Set(r.guardrails.filter((g) => g.status === "failing").map((g) => g.variant));
  const challenger = (cell: (v: VariantResult) => ReactNode) => (v: VariantResult) =>
    isControl(v) ? "—" : cell(v);
  const columns: GroupedColumn<VariantResult>[] = [
    {
      header: "Variant",
      cell: (v) =>
        isControl(v) ? (
          <>
            {v.name} <br />
            <small className="muted">(control)</small>
          </>
        ) : (
          v.name
        ),
    },
    { header: "Exposures", numeric: true, cell: (v) => v.exposures.toLocaleString() },
    { header: "Conversions", numeric: true, cell: (v) => v.conversions.toLocaleString() },
    { header: "Rate", numeric: true, cell: (v) => percent(v.conversionRate, 2) },
    {
      header: "Uplift",
      group: FIXED,
      numeric: true,
      cell: challenger((v) =>
        v.upliftInterval
          ? withInterval(signedPercent(v.uplift), interval(v.upliftInterval, signedPercent))
          : signedPercent(v.uplift),
      ),
    },
    { header: "p-value", group: FIXED, numeric: true, cell: challenger((v) => pText(v.pValue)) },
    // With several challengers, the p-values adjusted for comparing them all (Holm–Bonferroni).
    ...(r.variants.length > 2
      ? [
          {
            header: "p-value, adjusted (Holm)",
            label: twoLines("p-value, adjusted", "(Holm)"),
            group: FIXED,
            numeric: true,
            cell: challenger((v) => pText(v.adjustedPValue)),
          },
        ]
      : []),
    // A bandit is never decided by the sequential test: its columns would only mislead.
    ...(bandit
      ? []
      : [
          // The page's one confidence figure: 1 − the always-valid p-value, so the
          // test decides at 95%. The Bayesian chance stays in the API, off the page.
          {
            header: "Confidence",
            group: SEQUENTIAL,
            numeric: true,
            cell: challenger((v) => {
              const confidence = v.sequential ? (
                <span data-testid="sequential-confidence">{formatConfidence(1 - v.sequential.pValue)}</span>
              ) : (
                "—"
              );
              return v.sequential?.interval
                ? withInterval(
                    confidence,
                    interval(v.sequential.interval, signedPercent),
                    "sequential-interval",
                  )
                : confidence;
            }),
          },
          {
            header: "Decided",
            group: SEQUENTIAL,
            cell: challenger((v) => (
              <span data-testid="sequential-decided">
                {!v.sequential?.decided ? (
                  "not yet"
                ) : blocked.has(v.name) ? (
                  <>
                    yes, <br />
                    <small className="muted">blocked</small>
                  </>
                ) : (
                  "yes"
                )}
              </span>
            )),
          },
        ]),
    {
      header: "Revenue / visitor",
      label: twoLines("Revenue /", "visitor"),
      numeric: true,
      cell: (v) => {
        const mean = <span data-testid="revenue-per-visitor">{money(v.revenuePerVisitor.mean)}</span>;
        return !isControl(v) && v.revenuePerVisitor.interval
          ? withInterval(mean, interval(v.revenuePerVisitor.interval, signedMoney), "revenue-interval")
          : mean;
      },
    },
  ];
  return (
    <>
      <p className="muted">
        Fixed-horizon figures are valid for one look at a planned sample.{" "}
        {bandit
          ? "A bandit's traffic shifts as it runs, so here they are descriptive."
          : "The sequential test completes the experiment and is safe to check any time: its confidence decides at 95%; “blocked” means a failing guardrail keeps the variant from winning."}{" "}
        Under each figure, its 95% interval (of the uplift; of the revenue difference against the control).
      </p>
      <GroupedTable
        caption="Results per variant"
        rows={r.variants}
        rowKey={(v) => v.name}
        columns={columns}
      />
    </>
  );
}
