import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Field, SelectField } from "../../components/Field";
import { FUNNEL_DIMENSIONS, type FunnelDimension } from "../../components/dimensions";
import { PeriodPicker } from "../../components/PeriodPicker";
import { FilterBar } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { usePeriod } from "../../components/period";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { FunnelBars } from "./FunnelBars";
import { FunnelBreakdown } from "./FunnelBreakdown";
import { StepsEditor, type StepDraft } from "./StepsEditor";
import { funnelBody, useFunnelParams } from "./url";
import { SaveInsight } from "../../components/SaveInsight";
import { analyticsKeys } from "../../components/analyticsKeys";

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;

/** "1 h 5 min", "42 s": a median duration, or "–" when nobody reached the step. */
function duration(seconds: number | null): string {
  if (seconds === null) return "–";
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
  return `${(seconds / 86_400).toFixed(1)} days`;
}

const START: StepDraft[] = [
  { eventType: "pageview", urlPattern: "", conditions: [] },
  { eventType: "signup", urlPattern: "", conditions: [] },
];

/** Funnels: steps in order per person (a lead's visitors together), within a window from the first. */
export default function FunnelsPage() {
  const [period, setPeriod] = usePeriod();
  const { conditions: filter, param: filterKey } = useFilter();
  // The funnel shown lives in the URL (url.ts); the form edits a draft until it is submitted.
  const [shown, setShown] = useFunnelParams();
  const [draft, setDraft] = useState<StepDraft[]>(shown?.steps ?? START);
  const [windowDays, setWindowDays] = useState(String(shown?.windowDays ?? 14));
  const [breakdownBy, setBreakdownBy] = useState<FunnelDimension | "">(shown?.breakdownBy ?? "");
  const body = shown ? funnelBody(shown, period, filter) : null;
  const funnel = useQuery({
    queryKey: analyticsKeys.funnel(
      { steps: body?.steps, windowDays: shown?.windowDays, breakdownBy: shown?.breakdownBy },
      period,
      filterKey,
    ),
    enabled: body !== null,
    queryFn: () => call(api.POST("/api/analytics/funnel", { body: body! })),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setShown({ steps: draft, windowDays: Number(windowDays), breakdownBy });
  };

  return (
    <>
      <PageHeader title="Funnels">
        <SaveInsight
          kind="funnel"
          settings={body ?? undefined}
          suggestedName={shown ? shown.steps.map((s) => s.eventType).join(" → ") : "Funnel"}
        />
        <PeriodPicker value={period} onChange={setPeriod} />
      </PageHeader>
      <FilterBar />
      <Card title="Steps">
        <form onSubmit={submit} aria-label="Funnel steps">
          <StepsEditor steps={draft} onChange={setDraft} />
          <div className="form-row">
            <Field
              label="Window (days)"
              type="number"
              min={1}
              max={90}
              required
              value={windowDays}
              onChange={(e) => setWindowDays(e.target.value)}
              hint="Each step must follow the first within this many days."
            />
            <SelectField
              label="Break down by"
              value={breakdownBy}
              onChange={(e) => setBreakdownBy(e.target.value as FunnelDimension | "")}
              options={[{ value: "", label: "Nothing" }, ...FUNNEL_DIMENSIONS]}
            />
          </div>
          <button type="submit" className="button">
            Show funnel
          </button>
        </form>
      </Card>
      <Card title="Conversion through the steps">
        {shown === null ? (
          <EmptyState title="No funnel yet">Name the steps in order, then show the funnel.</EmptyState>
        ) : funnel.isPending ? (
          <PageSkeleton label="Counting the funnel" />
        ) : funnel.isError ? (
          <ErrorState error={funnel.error} retry={() => void funnel.refetch()} />
        ) : (
          <>
            <FunnelBars steps={funnel.data.steps} />
            <DataTable
              caption="Funnel steps"
              rows={funnel.data.steps}
              rowKey={(s) => String(s.index)}
              columns={[
                { header: "Step", cell: (s) => `${s.index + 1}. ${s.label}` },
                {
                  header: "People",
                  numeric: true,
                  cell: (s) => s.count.toLocaleString(),
                  csv: (s) => s.count,
                },
                {
                  header: "From previous",
                  numeric: true,
                  cell: (s) => percent(s.conversionFromPrevious),
                  csvHeader: "From previous (fraction)",
                  csv: (s) => s.conversionFromPrevious,
                },
                {
                  header: "From start",
                  numeric: true,
                  cell: (s) => percent(s.conversionFromStart),
                  csvHeader: "From start (fraction)",
                  csv: (s) => s.conversionFromStart,
                },
                {
                  header: "Median time from previous",
                  numeric: true,
                  cell: (s) => duration(s.medianSecondsFromPrevious),
                  csvHeader: "Median seconds from previous",
                  csv: (s) => s.medianSecondsFromPrevious,
                },
              ]}
            />
          </>
        )}
      </Card>
      {funnel.data?.breakdown && (
        <Card title="By the session people entered in">
          {funnel.data.breakdown.groups.length === 0 ? (
            <EmptyState title="Nobody entered">No one took the first step in this period.</EmptyState>
          ) : (
            <FunnelBreakdown
              by={funnel.data.breakdown.by}
              label={FUNNEL_DIMENSIONS.find((d) => d.value === funnel.data.breakdown!.by)?.label ?? "Value"}
              steps={funnel.data.steps}
              groups={funnel.data.breakdown.groups}
            />
          )}
        </Card>
      )}
    </>
  );
}
