import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { beliefKeys, useBeliefs } from "./model";

export const confidenceText = (c: number) => `${Math.round(c * 100)}%`;

/** The beliefs the team works from, with how confident the evidence has made it; a form to add one. */
export function BeliefsSection() {
  const queryClient = useQueryClient();
  const list = useBeliefs();
  const [statement, setStatement] = useState("");
  const [confidence, setConfidence] = useState("50");
  const create = useMutation({
    mutationFn: () =>
      call(api.POST("/api/beliefs", { body: { statement, confidence: Number(confidence) / 100 } })),
    onSuccess: () => {
      setStatement("");
      void queryClient.invalidateQueries({ queryKey: beliefKeys.all });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Card title="Beliefs">
      {list.isPending ? (
        <PageSkeleton label="Loading beliefs" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No beliefs yet">
          Write down what you believe about your customers; experiments and observations then move its
          confidence.
        </EmptyState>
      ) : (
        <DataTable
          caption="Beliefs"
          rows={list.data}
          rowKey={(b) => b.id}
          columns={[
            { header: "Belief", cell: (b) => <Link to={`/goals/beliefs/${b.id}`}>{b.statement}</Link> },
            {
              header: "Confidence",
              numeric: true,
              cell: (b) => confidenceText(b.confidence),
              csvHeader: "Confidence (fraction)",
              csv: (b) => b.confidence,
            },
            {
              header: "Evidence",
              numeric: true,
              cell: (b) => b.evidence.length,
              csv: (b) => b.evidence.length,
            },
            { header: "Tags", cell: (b) => b.tags.join(", ") || "—" },
          ]}
        />
      )}
      <form onSubmit={submit} aria-label="Add a belief">
        <div className="form-row">
          <Field
            label="Belief"
            required
            maxLength={2000}
            value={statement}
            onChange={(e) => setStatement(e.target.value)}
          />
          <Field
            label="Starting confidence (%)"
            type="number"
            min={0}
            max={100}
            required
            value={confidence}
            onChange={(e) => setConfidence(e.target.value)}
          />
        </div>
        <button type="submit" className="button" disabled={create.isPending}>
          Add belief
        </button>
      </form>
      {create.isError && <ErrorState title="Not added" error={create.error} />}
    </Card>
  );
}
