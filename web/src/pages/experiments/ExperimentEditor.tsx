import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api, call } from "../../api/client";
import { Field, SelectField } from "../../components/Field";
import { Card, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { useConversionGoals } from "./goals";
import { blankMetrics, type MetricsDraft, MetricsEditor, metricsBody, metricsFrom } from "./MetricsEditor";
import {
  type Experiment,
  experimentKeys,
  fetchExperiment,
  MODES,
  type Mode,
  RUNNERS,
  type Runner,
} from "./model";
import { useBeliefs } from "../goals/model";
import { type VariantDraft, VariantsEditor } from "./VariantsEditor";

interface Draft {
  name: string;
  runner: Runner;
  targetUrl: string;
  mode: Mode;
  trafficSplit: string;
  beliefId: string;
  variants: VariantDraft[];
  metrics: MetricsDraft;
}

const blank: Draft = {
  name: "",
  runner: "snippet",
  targetUrl: "",
  mode: "ab",
  trafficSplit: "100",
  beliefId: "",
  variants: [
    { name: "control", css: "", js: "" },
    { name: "variant", css: "", js: "" },
  ],
  metrics: blankMetrics,
};

type Editable = Pick<
  Experiment,
  | "name"
  | "runner"
  | "targetUrl"
  | "mode"
  | "trafficSplit"
  | "beliefId"
  | "variants"
  | "metrics"
  | "conversionGoalIds"
>;

const fromExperiment = (e: Editable): Draft => ({
  name: e.name,
  runner: e.runner,
  targetUrl: e.targetUrl ?? "",
  mode: e.mode,
  trafficSplit: String(e.trafficSplit),
  beliefId: e.beliefId ?? "",
  variants: e.variants.map((v) => ({ name: v.name, css: v.css ?? "", js: v.js ?? "" })),
  metrics: metricsFrom(e),
});

/** The variants to send; a flag's experiment carries names only (the customer's code does the rest). */
const toVariants = (vs: VariantDraft[], runner: Runner) =>
  vs.map((v) => ({
    name: v.name.trim(),
    ...(runner === "snippet" && v.css ? { css: v.css } : {}),
    ...(runner === "snippet" && v.js ? { js: v.js } : {}),
  }));

/** Creates an experiment (`/experiments/new`) or edits one (`/experiments/:id/edit`). */
export function ExperimentEditor() {
  const { id } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const existing = useQuery({
    queryKey: experimentKeys.detail(id!),
    queryFn: () => fetchExperiment(id!),
    enabled: Boolean(id),
  });
  const beliefs = useBeliefs();
  const { goals, nameOf } = useConversionGoals();
  const [draft, setDraft] = useState<Draft>(blank);
  useEffect(() => {
    if (existing.data) setDraft(fromExperiment(existing.data));
  }, [existing.data]);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));

  const save = useMutation({
    mutationFn: async () => {
      const common = {
        name: draft.name,
        // A flag's experiment has no page: the API refuses a targetUrl for it.
        ...(draft.runner === "snippet" ? { targetUrl: draft.targetUrl } : {}),
        trafficSplit: Number(draft.trafficSplit),
        beliefId: draft.beliefId || null,
      };
      if (!id)
        return call(
          api.POST("/api/experiments", {
            body: {
              ...common,
              runner: draft.runner,
              mode: draft.mode,
              variants: toVariants(draft.variants, draft.runner),
              metrics: metricsBody(draft.metrics),
            },
          }),
        );
      const before = existing.data!;
      const metrics = metricsBody(draft.metrics, fromExperiment(before).metrics);
      const variantsChanged =
        JSON.stringify(toVariants(draft.variants, draft.runner)) !==
        JSON.stringify(toVariants(fromExperiment(before).variants, draft.runner));
      return call(
        api.PATCH("/api/experiments", {
          body: {
            id,
            ...common,
            ...(variantsChanged ? { variants: toVariants(draft.variants, draft.runner) } : {}),
            ...(metrics ? { metrics } : {}),
          },
        }),
      );
    },
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: experimentKeys.all });
      navigate(`/experiments/${saved.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  if (id && existing.isPending) return <PageSkeleton label="Loading the experiment" />;
  if (id && existing.isError)
    return <ErrorState error={existing.error} retry={() => void existing.refetch()} />;
  const hasRun = Boolean(existing.data?.startedAt);

  return (
    <>
      <PageHeader title={id ? `Edit ${existing.data?.name ?? ""}` : "New experiment"}>
        <Link className="button secondary" to={id ? `/experiments/${id}` : "/experiments"}>
          Cancel
        </Link>
      </PageHeader>
      <Card>
        <form onSubmit={submit} aria-label={id ? "Edit the experiment" : "Create an experiment"}>
          <div className="form-row">
            <Field
              label="Name"
              value={draft.name}
              required
              maxLength={200}
              onChange={(e) => set({ name: e.target.value })}
            />
            <SelectField
              label="Runs by"
              value={draft.runner}
              disabled={Boolean(id)}
              onChange={(e) => set({ runner: e.target.value as Runner })}
              options={RUNNERS}
            />
            {draft.runner === "snippet" ? (
              <Field
                label="Page URL"
                hint="The page the snippet runs this experiment on."
                type="url"
                placeholder="https://shop.example.com/pricing"
                value={draft.targetUrl}
                required
                maxLength={2000}
                onChange={(e) => set({ targetUrl: e.target.value })}
              />
            ) : (
              <p className="muted" data-testid="flag-runner-note">
                No page URL: a feature flag's experiment rule shows the variants in your code (Flags → the
                flag → an experiment rule with one value per variant).
              </p>
            )}
          </div>
          <div className="form-row">
            <SelectField
              label="Type"
              value={draft.mode}
              disabled={Boolean(id)}
              onChange={(e) => set({ mode: e.target.value as Mode })}
              options={MODES}
            />
            <Field
              label="Traffic in the experiment (%)"
              type="number"
              min={0}
              max={100}
              step="any"
              value={draft.trafficSplit}
              onChange={(e) => set({ trafficSplit: e.target.value })}
            />
            <SelectField
              label="Belief it tests"
              value={draft.beliefId}
              onChange={(e) => set({ beliefId: e.target.value })}
              options={[
                { value: "", label: beliefs.isPending ? "Loading beliefs…" : "None" },
                ...(beliefs.data ?? []).map((b) => ({ value: b.id, label: b.statement })),
              ]}
            />
          </div>
          {goals.isError ? (
            <ErrorState title="Goals not loaded" error={goals.error} retry={() => void goals.refetch()} />
          ) : goals.isPending ? (
            <p className="muted">Loading conversion goals…</p>
          ) : (
            <MetricsEditor
              goals={goals.data}
              value={draft.metrics}
              onChange={(metrics) => set({ metrics })}
              several={(existing.data?.conversionGoalIds ?? []).map(nameOf)}
              primaryLocked={hasRun}
            />
          )}
          <VariantsEditor
            variants={draft.variants}
            onChange={(variants) => set({ variants })}
            locked={hasRun}
            code={draft.runner === "snippet"}
          />
          <button type="submit" className="button" disabled={save.isPending}>
            {id ? "Save changes" : "Create experiment"}
          </button>
        </form>
        {save.isError && <ErrorState title="Not saved" error={save.error} />}
      </Card>
    </>
  );
}
