import { useMemo } from "react";
import { Link, useParams } from "react-router";
import { Chart, preloadChart } from "../../components/Chart";
import { DataTable } from "../../components/DataTable";
import { StatTile } from "../../components/StatTile";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { confidenceText } from "./BeliefsSection";
import { EvidenceForm } from "./EvidenceForm";
import { useBelief } from "./model";

preloadChart();
const NO_DATES: string[] = [];

/** `/goals/beliefs/:id`: confidence over time, the evidence that moved it, and adding evidence. */
export function BeliefPage() {
  const { id } = useParams();
  const belief = useBelief(id!);
  // Confidence over time: where it started, then after each piece of evidence.
  const history = useMemo(() => {
    const b = belief.data;
    if (!b) return null;
    const start = b.evidence[0]?.confidenceBefore ?? b.confidence;
    const points = [
      { at: b.createdAt, value: start },
      ...b.evidence.map((e) => ({ at: e.timestamp, value: e.confidenceAfter })),
    ];
    return {
      times: points.map((p) => p.at),
      series: [{ label: "Confidence", color: "#4f46e5", values: points.map((p) => p.value) }],
    };
  }, [belief.data]);

  if (belief.isPending) return <PageSkeleton label="Loading the belief" />;
  if (belief.isError) return <ErrorState error={belief.error} retry={() => void belief.refetch()} />;
  const b = belief.data;
  return (
    <>
      <PageHeader title={b.statement}>
        <Link className="button secondary" to="/goals">
          All goals &amp; beliefs
        </Link>
      </PageHeader>
      <div className="tiles">
        <StatTile label="Confidence" value={b.confidence} format={confidenceText} />
        <StatTile label="Pieces of evidence" value={b.evidence.length} />
      </div>
      <Card title="Confidence over time">
        {b.evidence.length === 0 ? (
          <EmptyState title="No evidence yet">
            Add an observation below, or link the belief to an experiment.
          </EmptyState>
        ) : (
          <Chart
            label={`Confidence in “${b.statement}” after each piece of evidence`}
            dates={NO_DATES}
            times={history!.times}
            series={history!.series}
            summary={(values) => `${confidenceText(values[values.length - 1] ?? 0)} now`}
          />
        )}
      </Card>
      <Card title="Evidence">
        {b.evidence.length > 0 && (
          <DataTable
            caption="Evidence, oldest first"
            rows={b.evidence.map((e, i) => ({ ...e, key: `${i}` }))}
            rowKey={(e) => e.key}
            columns={[
              {
                header: "When",
                cell: (e) => new Date(e.timestamp).toLocaleString(),
                csv: (e) => e.timestamp,
              },
              { header: "Kind", cell: (e) => (e.experimentId ? `${e.type} (${e.experimentId})` : e.type) },
              {
                header: "Delta",
                numeric: true,
                cell: (e) => `${e.delta > 0 ? "+" : ""}${e.delta}`,
                csv: (e) => e.delta,
              },
              { header: "Sample", numeric: true, cell: (e) => e.sampleSize ?? "—", csv: (e) => e.sampleSize },
              {
                header: "Confidence",
                cell: (e) => `${confidenceText(e.confidenceBefore)} → ${confidenceText(e.confidenceAfter)}`,
              },
            ]}
          />
        )}
        <EvidenceForm beliefId={b.id} />
      </Card>
    </>
  );
}
