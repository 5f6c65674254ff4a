import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { api, call } from "../../api/client";
import { IntervalChart, preloadIntervalChart } from "../../components/IntervalChart";
import { StatTile } from "../../components/StatTile";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { BanditWeights } from "./BanditWeights";
import { DecisionLine } from "./DecisionLine";
import { useConversionGoals } from "./goals";
import { BanditCard, GuardrailsCard, SecondaryCard } from "./MetricsCards";
import { experimentKeys, fetchExperiment, formatConfidence, MOVES, type Status } from "./model";
import { VariantTable } from "./VariantTable";
import { Verdict, confidenceLabel } from "./Verdict";
import { ShipWinner } from "../flags/ShipWinner";

preloadIntervalChart();

/**
 * One experiment: its lifecycle actions, how it is decided, per-variant results (fixed-horizon and
 * sequential), guardrails, secondary metrics, uplift intervals, SRM and bandit weights.
 */
export function ExperimentResults() {
  const { id } = useParams();
  const queryClient = useQueryClient();
  const { nameOf } = useConversionGoals();
  const experiment = useQuery({
    queryKey: experimentKeys.detail(id!),
    queryFn: () => fetchExperiment(id!),
    // Results move while it runs: a live page, without hammering the API.
    refetchInterval: (q) => (q.state.data?.status === "running" ? 10_000 : false),
  });
  const move = useMutation({
    mutationFn: (status: Status) => call(api.PATCH("/api/experiments", { body: { id: id!, status } })),
    onSuccess: (saved) => {
      queryClient.setQueryData(experimentKeys.detail(id!), saved);
      void queryClient.invalidateQueries({ queryKey: experimentKeys.all });
    },
  });

  if (experiment.isPending) return <PageSkeleton label="Loading the experiment" />;
  if (experiment.isError)
    return <ErrorState error={experiment.error} retry={() => void experiment.refetch()} />;
  const e = experiment.data;
  const r = e.results;
  const challengers = r.variants.filter((v) => v.name !== r.control && v.upliftInterval);

  return (
    <>
      <PageHeader title={e.name}>
        <span className={`badge status-${e.status}`} data-testid="experiment-status">
          {e.status}
        </span>
        {MOVES[e.status].map((m) => (
          <button
            key={m.to}
            type="button"
            className={m.to === "completed" ? "button secondary" : "button"}
            disabled={move.isPending}
            onClick={() => {
              if (
                m.to !== "completed" ||
                window.confirm(`Complete ${e.name}? A completed experiment cannot run again.`)
              )
                move.mutate(m.to);
            }}
          >
            {m.label}
          </button>
        ))}
        {e.status !== "completed" && (
          <Link className="button secondary" to={`/experiments/${e.id}/edit`}>
            Edit
          </Link>
        )}
      </PageHeader>
      {move.isError && <ErrorState title="Not changed" error={move.error} />}
      <p className="muted break-all">
        {e.targetUrl === null ? (
          "Run by a feature flag"
        ) : (
          <>
            On <code>{e.targetUrl}</code>
          </>
        )}{" "}
        · {e.trafficSplit}% of visitors · {e.mode} · primary goal{" "}
        {e.conversionGoalIds?.length
          ? e.conversionGoalIds.map(nameOf).join(", ")
          : "any of the conversion goals"}
      </p>
      <Verdict experiment={e} />
      <DecisionLine experiment={e} />
      <ShipWinner experiment={e} />
      {r.srm.mismatch && (
        <div className="callout error" role="alert" data-testid="srm-warning">
          <strong>Sample ratio mismatch</strong>
          <p>
            Variants got visitors in proportions far from the planned split (p ={" "}
            {r.srm.pValue?.toExponential(1) ?? "—"}). Check that every variant's page loads and that the
            snippet runs before redirects; results may be biased.
          </p>
        </div>
      )}
      <div className="tiles">
        <StatTile label="Exposures" value={r.totalExposures} />
        <StatTile label="Conversions" value={r.totalConversions} />
        <StatTile
          label={confidenceLabel(e)}
          value={r.verdict.confidence}
          format={formatConfidence}
          detail={e.mode === "bandit" ? "of the leading arm" : "from the sequential test"}
        />
      </div>
      <Card title="Variants">
        {r.totalExposures === 0 && (
          <p className="muted">
            {e.runner === "flag"
              ? "No exposures yet: users are counted here as a feature flag's experiment rule puts them in a variant (its SDK reports the exposure)."
              : e.status === "draft"
                ? "No exposures yet: start the experiment; visitors of its page will then be counted here."
                : "No exposures yet: visitors of the page are counted here as the snippet shows them a variant."}
          </p>
        )}
        <VariantTable results={r} bandit={e.mode === "bandit"} />
      </Card>
      {r.guardrails.length > 0 && <GuardrailsCard experiment={e} nameOf={nameOf} />}
      {r.secondary.length > 0 && <SecondaryCard experiment={e} nameOf={nameOf} />}
      <Card title="Uplift against the control">
        {challengers.length === 0 ? (
          <EmptyState title="Not enough data for an interval yet">
            Each variant needs exposures and conversions before its uplift can be estimated.
          </EmptyState>
        ) : (
          <IntervalChart
            label={`Uplift of each variant over ${r.control} with its 95% interval (fixed-horizon)`}
            intervals={challengers.map((v) => ({
              label: v.name,
              estimate: v.uplift ?? 0,
              low: v.upliftInterval![0],
              high: v.upliftInterval![1],
            }))}
          />
        )}
      </Card>
      {e.mode === "bandit" && (
        <>
          <BanditCard experiment={e} />
          <BanditWeights id={e.id} />
        </>
      )}
    </>
  );
}
