import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { api, call } from "../../api/client";
import { Chart, preloadChart } from "../../components/Chart";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { experimentKeys } from "./model";

preloadChart();

const NO_DATES: string[] = [];
const COLOURS = ["#4f46e5", "#b45309", "#047857", "#be123c", "#0369a1", "#6d28d9", "#4d7c0f", "#a21caf"];

/** A bandit's share of traffic per variant over time. */
export function BanditWeights({ id }: { id: string }) {
  const history = useQuery({
    queryKey: experimentKeys.weights(id),
    queryFn: () => call(api.GET("/api/experiments/{id}/weights", { params: { path: { id } } })),
  });
  return (
    <Card title="Traffic share over time">
      {history.isPending ? (
        <PageSkeleton label="Loading the allocation history" />
      ) : history.isError ? (
        <ErrorState error={history.error} retry={() => void history.refetch()} />
      ) : history.data.points.length === 0 ? (
        <EmptyState title="Not started yet">The bandit's allocation is recorded from its start.</EmptyState>
      ) : (
        <WeightsChart variants={history.data.variants} points={history.data.points} />
      )}
    </Card>
  );
}

/** The allocation holds until the next one: the last point is carried to now. */
function WeightsChart({
  variants,
  points,
}: {
  variants: string[];
  points: { at: string; weights: number[] }[];
}) {
  // Memoised: the chart redraws when its inputs change, not on every render.
  const { times, series } = useMemo(() => {
    const upToNow = [
      ...points,
      { at: new Date().toISOString(), weights: points[points.length - 1]!.weights },
    ];
    return {
      times: upToNow.map((p) => p.at),
      series: variants.map((name, i) => ({
        label: name,
        color: COLOURS[i % COLOURS.length]!,
        values: upToNow.map((p) => p.weights[i] ?? 0),
      })),
    };
  }, [variants, points]);
  return (
    <Chart
      label="Share of traffic per variant, as the bandit reallocated it"
      dates={NO_DATES}
      times={times}
      summary={(values) => `${((values[values.length - 1] ?? 0) * 100).toFixed(1)}% now`}
      series={series}
    />
  );
}
