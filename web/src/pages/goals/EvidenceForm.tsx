import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { Field, SelectField } from "../../components/Field";
import { ErrorState } from "../../components/states";
import { beliefKeys } from "./model";

type Kind = "observation" | "external" | "experiment";

/** Adds a piece of evidence; the API decides how far it moves the confidence. */
export function EvidenceForm({ beliefId }: { beliefId: string }) {
  const queryClient = useQueryClient();
  const [type, setType] = useState<Kind>("observation");
  const [delta, setDelta] = useState("0.1");
  const [sampleSize, setSampleSize] = useState("");
  const add = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/beliefs/{id}/update-confidence", {
          params: { path: { id: beliefId } },
          body: { type, delta: Number(delta), ...(sampleSize ? { sampleSize: Number(sampleSize) } : {}) },
        }),
      ),
    onSuccess: (updated) => {
      queryClient.setQueryData(beliefKeys.detail(beliefId), updated);
      void queryClient.invalidateQueries({ queryKey: beliefKeys.all });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Add evidence">
      <div className="form-row">
        <SelectField
          label="Kind of evidence"
          value={type}
          onChange={(e) => setType(e.target.value as Kind)}
          options={[
            { value: "observation", label: "Observation" },
            { value: "external", label: "External (research, a customer)" },
          ]}
        />
        <Field
          label="Strength (−1 to 1)"
          hint="Positive supports the belief, negative weakens it."
          type="number"
          step="any"
          min={-1}
          max={1}
          required
          value={delta}
          onChange={(e) => setDelta(e.target.value)}
        />
        <Field
          label="Sample size (optional)"
          type="number"
          min={0}
          value={sampleSize}
          onChange={(e) => setSampleSize(e.target.value)}
        />
      </div>
      <button type="submit" className="button" disabled={add.isPending}>
        Add evidence
      </button>
      {add.isError && <ErrorState title="Not added" error={add.error} />}
    </form>
  );
}
