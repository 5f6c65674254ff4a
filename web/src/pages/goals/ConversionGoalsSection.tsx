import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { type ConversionGoalInput, ConversionGoalForm, emptyConversionGoal } from "./ConversionGoalForm";
import { conversionGoalKeys, useConversionGoalList } from "./model";
import { RecomputeStatus } from "./RecomputeStatus";

/** What counts as a conversion: the project's conversion goals, and a form to add one. */
export function ConversionGoalsSection() {
  const queryClient = useQueryClient();
  const list = useConversionGoalList();
  const [formKey, setFormKey] = useState(0);
  const create = useMutation({
    mutationFn: (body: ConversionGoalInput) =>
      call(
        api.POST("/api/conversion-goals", {
          body: {
            name: body.name,
            eventType: body.eventType,
            ...(body.urlPattern ? { urlPattern: body.urlPattern } : {}),
            ...(body.conditions ? { conditions: body.conditions as never } : {}),
          },
        }),
      ),
    onSuccess: () => {
      setFormKey((k) => k + 1);
      void queryClient.invalidateQueries({ queryKey: conversionGoalKeys.all });
    },
  });
  return (
    <Card title="Conversion goals">
      {list.isPending ? (
        <PageSkeleton label="Loading conversion goals" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No conversion goals yet">
          Until you add one, only revenue events count as conversions in attribution and experiments.
        </EmptyState>
      ) : (
        <DataTable
          caption="Conversion goals"
          rows={list.data}
          rowKey={(c) => c.id}
          columns={[
            { header: "Name", cell: (c) => <Link to={`/goals/conversions/${c.id}`}>{c.name}</Link> },
            { header: "Event type", cell: (c) => <code>{c.eventType}</code> },
            { header: "URL pattern", cell: (c) => c.urlPattern ?? "any" },
            {
              header: "Conditions",
              cell: (c) =>
                c.conditions ? <code className="break-all">{JSON.stringify(c.conditions)}</code> : "none",
            },
            { header: "History", cell: (c) => <RecomputeStatus goal={c} /> },
          ]}
        />
      )}
      <p className="small muted">
        A new goal, or a change of what it matches, is counted over the events already stored too: the History
        column shows how far that recount got.
      </p>
      <ConversionGoalForm
        key={formKey}
        initial={emptyConversionGoal}
        submitLabel="Add conversion goal"
        busy={create.isPending}
        onSubmit={(d) => create.mutate(d)}
      />
      {create.isError && <ErrorState title="Not added" error={create.error} />}
    </Card>
  );
}
