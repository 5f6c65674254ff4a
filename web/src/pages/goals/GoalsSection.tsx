import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Field, SelectField } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import {
  BUILT_IN_METRICS,
  formatValue,
  goalKeys,
  inDays,
  STATUS_LABEL,
  sinceText,
  useConversionGoalList,
  useGoals,
} from "./model";
import { TargetFields } from "./TargetFields";

/** Goals with their progress towards the target and the pace status; a form to add one. */
export function GoalsSection() {
  const queryClient = useQueryClient();
  const goals = useGoals();
  const conversions = useConversionGoalList();
  const [metric, setMetric] = useState("visitors");
  const [target, setTarget] = useState("");
  const [deadline, setDeadline] = useState(inDays(30));
  const [unit, setUnit] = useState("");
  const [startDate, setStartDate] = useState("");
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/goals", {
          body: {
            metric,
            target: Number(target),
            deadline,
            ...(unit ? { unit } : {}),
            ...(startDate ? { startDate } : {}),
          },
        }),
      ),
    onSuccess: () => {
      setTarget("");
      void queryClient.invalidateQueries({ queryKey: goalKeys.all });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const metrics = [...BUILT_IN_METRICS, ...(conversions.data ?? []).map((c) => c.name)];

  return (
    <Card title="Goals">
      {goals.isPending ? (
        <PageSkeleton label="Loading goals" />
      ) : goals.isError ? (
        <ErrorState error={goals.error} retry={() => void goals.refetch()} />
      ) : goals.data.length === 0 ? (
        <EmptyState title="No goals yet">
          Set a target below: Lift tracks it and says whether you are on pace.
        </EmptyState>
      ) : (
        <DataTable
          caption="Goals"
          rows={goals.data}
          rowKey={(g) => g.id}
          columns={[
            { header: "Metric", cell: (g) => g.description ?? g.metric },
            {
              header: "Progress",
              cell: (g) => (
                <div className="progress-cell">
                  <progress
                    max={g.target}
                    value={Math.min(g.current, g.target)}
                    aria-label={`${g.metric}: ${formatValue(g.current, g.unit)} of ${formatValue(g.target, g.unit)}`}
                  />
                  <span className="small" data-testid="goal-progress">
                    {formatValue(g.current, g.unit)} / {formatValue(g.target, g.unit)}
                  </span>
                  <small className="muted" data-testid="goal-since">
                    {sinceText(g.startDate)}
                  </small>
                </div>
              ),
            },
            {
              header: "Status",
              cell: (g) => (
                <span className={`badge status-${g.status}`} data-testid="goal-status">
                  {STATUS_LABEL[g.status]}
                  {g.statusSource === "manual" ? " (set by hand)" : ""}
                </span>
              ),
            },
            { header: "Deadline", cell: (g) => g.deadline },
            {
              header: "Actions",
              cell: (g) => (
                <Link
                  className="button secondary small"
                  to={`/goals/${g.id}/edit`}
                  aria-label={`Edit the ${g.metric} goal`}
                >
                  Edit
                </Link>
              ),
            },
          ]}
        />
      )}
      <form onSubmit={submit} aria-label="Add a goal">
        <div className="form-row">
          <SelectField
            label="Metric"
            value={metric}
            onChange={(e) => setMetric(e.target.value)}
            options={metrics.map((m) => ({ value: m, label: m }))}
          />
          <TargetFields target={target} setTarget={setTarget} deadline={deadline} setDeadline={setDeadline} />
          <Field
            label="Count from (optional)"
            type="date"
            max={deadline}
            value={startDate}
            onChange={(e) => setStartDate(e.target.value)}
            hint="Default: today. Earlier counts what already happened, e.g. the quarter so far."
          />
          <Field
            label="Unit (optional)"
            value={unit}
            maxLength={50}
            onChange={(e) => setUnit(e.target.value)}
          />
        </div>
        <button type="submit" className="button" disabled={create.isPending}>
          Add goal
        </button>
      </form>
      {create.isError && <ErrorState title="Not added" error={create.error} />}
    </Card>
  );
}
