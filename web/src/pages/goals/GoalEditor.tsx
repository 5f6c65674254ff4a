import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api, call } from "../../api/client";
import { Field, SelectField } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { type GoalStatus, goalKeys, STATUS_LABEL, sinceText, useGoals } from "./model";
import { TargetFields } from "./TargetFields";

/** `/goals/:id/edit`: target, deadline, description, unit, and a status set by hand. */
export function GoalEditor() {
  const { id } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const goals = useGoals();
  const goal = goals.data?.find((g) => g.id === id);
  const [target, setTarget] = useState("");
  const [deadline, setDeadline] = useState("");
  const [description, setDescription] = useState("");
  const [status, setStatus] = useState("");
  const [startDate, setStartDate] = useState("");
  useEffect(() => {
    if (!goal) return;
    setTarget(String(goal.target));
    setDeadline(goal.deadline.slice(0, 10));
    setDescription(goal.description ?? "");
    setStartDate(goal.startDate.slice(0, 10));
  }, [goal]);
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PATCH("/api/goals", {
          body: {
            id: id!,
            target: Number(target),
            deadline,
            description,
            // Only a changed day: the stored start may be a moment within it (its creation).
            ...(goal && startDate !== goal.startDate.slice(0, 10) ? { startDate } : {}),
            ...(status ? { status: status as GoalStatus } : {}),
          },
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: goalKeys.all });
      navigate("/goals");
    },
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE("/api/goals", { params: { query: { id: id! } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: goalKeys.all });
      navigate("/goals");
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  if (goals.isPending) return <PageSkeleton label="Loading the goal" />;
  if (goals.isError) return <ErrorState error={goals.error} retry={() => void goals.refetch()} />;
  if (!goal) return <EmptyState title="No such goal" action={<Link to="/goals">Back to goals</Link>} />;
  return (
    <>
      <PageHeader title={`Edit the ${goal.metric} goal`}>
        <Link className="button secondary" to="/goals">
          Cancel
        </Link>
      </PageHeader>
      <Card>
        <form onSubmit={submit} aria-label="Edit the goal">
          <div className="form-row">
            <TargetFields
              target={target}
              setTarget={setTarget}
              deadline={deadline}
              setDeadline={setDeadline}
            />
            <Field
              label="Count from"
              type="date"
              required
              max={deadline}
              value={startDate}
              onChange={(e) => setStartDate(e.target.value)}
              hint={`Now ${sinceText(goal.startDate)}.`}
            />
          </div>
          <Field
            label="Description"
            value={description}
            maxLength={2000}
            onChange={(e) => setDescription(e.target.value)}
          />
          <SelectField
            label="Status"
            value={status}
            onChange={(e) => setStatus(e.target.value)}
            options={[
              { value: "", label: `Keep (${STATUS_LABEL[goal.status]})` },
              ...Object.entries(STATUS_LABEL).map(([value, label]) => ({
                value,
                label: `${label} (set by hand)`,
              })),
            ]}
          />
          <div className="form-row">
            <button type="submit" className="button" disabled={save.isPending}>
              Save goal
            </button>
            <button
              type="button"
              className="button danger"
              disabled={remove.isPending}
              onClick={() => {
                if (window.confirm(`Delete the ${goal.metric} goal?`)) remove.mutate();
              }}
            >
              Delete goal
            </button>
          </div>
        </form>
        {save.isError && <ErrorState title="Not saved" error={save.error} />}
        {remove.isError && <ErrorState title="Not deleted" error={remove.error} />}
      </Card>
    </>
  );
}
