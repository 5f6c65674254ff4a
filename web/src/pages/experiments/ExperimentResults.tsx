import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { IntervalChart, preloadIntervalChart } from "../../components/IntervalChart";
import { StatTile } from "../../components/StatTile";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { BanditWeights } from "./BanditWeights";
import { type Experiment, MOVES, percent, signedPercent, type Status } from "./model";

preloadIntervalChart();

type Variant = Omit<Experiment["results"]["variants"][number], "upliftInterval"> & {
  upliftInterval: number[] | null;
};

/** One experiment: its lifecycle actions, per-variant results, uplift intervals, SRM and bandit weights. */
export function ExperimentResults() {
  const { id } = useParams();
  const queryClient = useQueryClient();
  const experiment = useQuery({
    queryKey: ["experiments", id],
    queryFn: () => call(api.GET("/api/experiments/{id}", { params: { path: { id: id! } } })),
    // Results move while it runs: a live page, without hammering the API.
    refetchInterval: (q) => (q.state.data?.status === "running" ? 10_000 : false),
  });
  const move = useMutation({
    mutationFn: (status: Status) => call(api.PATCH("/api/experiments", { body: { id: id!, status } })),
    onSuccess: (saved) => {
      queryClient.setQueryData(["experiments", id], saved);
      void queryClient.invalidateQueries({ queryKey: ["experiments"] });
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
        On <code>{e.targetUrl}</code> · {e.trafficSplit}% of visitors · {e.mode}
        {e.winner && (
          <>
            {" "}
            · winner <strong>{e.winner}</strong>
            {e.completionReason && ` (${e.completionReason})`}
          </>
        )}
      </p>
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
        <StatTile label="Confidence" value={e.confidence} format={(n) => percent(n, 0)} />
      </div>
      <Card title="Variants">
        {r.totalExposures === 0 ? (
          <EmptyState title="No exposures yet">
            {e.status === "draft"
              ? "Start the experiment; visitors of its page will then be counted here."
              : "Visitors of the page are counted here as the snippet shows them a variant."}
          </EmptyState>
        ) : (
          <VariantTable variants={r.variants} control={r.control} />
        )}
      </Card>
      <Card title="Uplift against the control">
        {challengers.length === 0 ? (
          <EmptyState title="Not enough data for an interval yet">
            Each variant needs exposures and conversions before its uplift can be estimated.
          </EmptyState>
        ) : (
          <IntervalChart
            label={`Uplift of each variant over ${r.control} with its 95% interval`}
            intervals={challengers.map((v) => ({
              label: v.name,
              estimate: v.uplift ?? 0,
              low: v.upliftInterval![0],
              high: v.upliftInterval![1],
            }))}
          />
        )}
      </Card>
      {e.mode === "bandit" && <BanditWeights id={e.id} />}
    </>
  );
}

function VariantTable({ variants, control }: { variants: Variant[]; control: string }) {
  return (
    <DataTable
      caption="Results per variant"
      rows={variants}
      rowKey={(v) => v.name}
      columns={[
        { header: "Variant", cell: (v) => (v.name === control ? `${v.name} (control)` : v.name) },
        { header: "Exposures", numeric: true, cell: (v) => v.exposures.toLocaleString() },
        { header: "Conversions", numeric: true, cell: (v) => v.conversions.toLocaleString() },
        { header: "Rate", numeric: true, cell: (v) => percent(v.conversionRate, 2) },
        {
          header: "Uplift",
          numeric: true,
          cell: (v) =>
            v.name === control
              ? "—"
              : `${signedPercent(v.uplift)}${v.upliftInterval ? ` (${signedPercent(v.upliftInterval[0])} to ${signedPercent(v.upliftInterval[1])})` : ""}`,
        },
        {
          header: "Chance to beat control",
          numeric: true,
          cell: (v) => (v.name === control ? "—" : percent(v.chanceToBeatControl)),
        },
        { header: "p-value", numeric: true, cell: (v) => (v.name === control ? "—" : pText(v.pValue)) },
        // With several challengers, the p-values adjusted for comparing them all (Holm–Bonferroni).
        ...(variants.length > 2
          ? [
              {
                header: "p-value, adjusted (Holm)",
                numeric: true,
                cell: (v: Variant) => (v.name === control ? "—" : pText(v.adjustedPValue)),
              },
            ]
          : []),
      ]}
    />
  );
}

const pText = (p: number | null) => (p === null ? "—" : p < 0.001 ? "< 0.001" : p.toFixed(3));
