import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router";
import { api, call } from "../../api/client";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { type ConversionGoalInput, ConversionGoalForm } from "./ConversionGoalForm";
import { conversionGoalKeys, goalKeys, useConversionGoalList } from "./model";

/** `/goals/conversions/:id`: change or delete a conversion goal. */
export function ConversionGoalEditor() {
  const { id } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const list = useConversionGoalList();
  const done = () => {
    void queryClient.invalidateQueries({ queryKey: conversionGoalKeys.all });
    void queryClient.invalidateQueries({ queryKey: goalKeys.all });
    navigate("/goals");
  };
  const save = useMutation({
    mutationFn: (d: ConversionGoalInput) =>
      call(
        api.PATCH("/api/conversion-goals", { body: { id: id!, ...d, conditions: d.conditions as never } }),
      ),
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE("/api/conversion-goals", { params: { query: { id: id! } } })),
    onSuccess: done,
  });
  if (list.isPending) return <PageSkeleton label="Loading the conversion goal" />;
  if (list.isError) return <ErrorState error={list.error} retry={() => void list.refetch()} />;
  const goal = list.data.find((c) => c.id === id);
  if (!goal)
    return <EmptyState title="No such conversion goal" action={<Link to="/goals">Back to goals</Link>} />;
  return (
    <>
      <PageHeader title={`Edit ${goal.name}`}>
        <Link className="button secondary" to="/goals">
          Cancel
        </Link>
      </PageHeader>
      <Card>
        <ConversionGoalForm
          initial={{
            name: goal.name,
            eventType: goal.eventType,
            urlPattern: goal.urlPattern ?? "",
            conditions: goal.conditions ? JSON.stringify(goal.conditions) : "",
          }}
          submitLabel="Save conversion goal"
          busy={save.isPending}
          onSubmit={(d) => save.mutate(d)}
        />
        {save.isError && <ErrorState title="Not saved" error={save.error} />}
        <button
          type="button"
          className="button danger"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete ${goal.name}? Events of this kind stop counting as conversions.`))
              remove.mutate();
          }}
        >
          Delete conversion goal
        </button>
        {remove.isError && <ErrorState title="Not deleted" error={remove.error} />}
      </Card>
    </>
  );
}
