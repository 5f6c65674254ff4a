import { useQueries } from "@tanstack/react-query";
import { useSearchParams } from "react-router";
import { api, call } from "../../api/client";
import { type Column, DataTable } from "../../components/DataTable";
import { SelectField } from "../../components/Field";
import { FilterBar, FilterValue } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { channelLabel } from "../../components/channels";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { SaveInsight, withFilter } from "../../components/SaveInsight";
import { useGoal } from "../../components/goal";
import { GoalPicker } from "../../components/GoalPicker";
import { attributionKeys } from "./model";
import { useRevenueMoney } from "../../components/revenue-money";

/** The models the API computes (GET /api/attribution/summary?model=…). */
const MODELS = [
  { value: "first_touch", label: "First touch" },
  { value: "last_touch", label: "Last touch" },
  { value: "linear", label: "Linear" },
  { value: "position_based", label: "Position based (40/20/40)" },
  { value: "time_decay", label: "Time decay" },
] as const;
type Model = (typeof MODELS)[number]["value"];
const PERIODS = [
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "90d", label: "Last 90 days" },
] as const;
type Period = (typeof PERIODS)[number]["value"];
/** What the rows are keyed by: the value of the touch's session (GET /api/attribution/summary?by=…). */
const BYS = [
  { value: "channel", label: "Channel" },
  { value: "source", label: "Source" },
  { value: "medium", label: "Medium" },
  { value: "campaign", label: "Campaign" },
] as const;
type By = (typeof BYS)[number]["value"];

const credit = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 2 });

interface Row {
  value: string;
  byModel: Record<string, { creditedConversions: number; revenue: number } | undefined>;
}

/**
 * A row's value as the report filter takes it (medium is no filter key; `(none)` is no value).
 */
function ValueCell({ by, value }: { by: By; value: string }) {
  if (by === "channel") return <FilterValue filterKey="channel" value={value} />;
  if (by === "medium" || value === "(none)") return <>{value}</>;
  return <FilterValue filterKey={by} value={value} />;
}

/** Which channels (sources, media, campaigns) bring conversions: one model in detail, then every model side by side. */
export default function AttributionPage() {
  const [params, setParams] = useSearchParams();
  const model = (MODELS.find((m) => m.value === params.get("model"))?.value ?? "position_based") as Model;
  const period = (PERIODS.find((p) => p.value === params.get("period"))?.value ?? "30d") as Period;
  const by = (BYS.find((b) => b.value === params.get("by"))?.value ?? "channel") as By;
  const byLabel = BYS.find((b) => b.value === by)!.label;
  const setParam = (key: string, value: string) =>
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      out.set(key, value);
      return out;
    });
  const { param: filter, conditions } = useFilter();
  const [goal, setGoal] = useGoal();
  const money = useRevenueMoney({ period }, filter, goal);
  // One request per model: the same cached answers feed the detail table and the comparison.
  const results = useQueries({
    queries: MODELS.map((m) => ({
      queryKey: attributionKeys.summary(m.value, period, filter, goal, by),
      queryFn: () =>
        call(
          api.GET("/api/attribution/summary", {
            params: { query: { model: m.value, period, by, filter, goal } },
          }),
        ),
    })),
  });
  const chosen = results[MODELS.findIndex((m) => m.value === model)]!;
  const failed = results.find((r) => r.isError);

  const rows: Row[] = [];
  const byValue = new Map<string, Row>();
  results.forEach((r, i) => {
    for (const c of r.data?.rows ?? []) {
      let row = byValue.get(c.value);
      if (!row) {
        row = { value: c.value, byModel: {} };
        byValue.set(c.value, row);
        rows.push(row);
      }
      row.byModel[MODELS[i]!.value] = c;
    }
  });
  const comparison: Column<Row>[] = [
    { header: byLabel, cell: (r) => <ValueCell by={by} value={r.value} />, csv: (r) => r.value },
    ...MODELS.flatMap((m) => [
      {
        header: `${m.label}: conversions`,
        numeric: true as const,
        cell: (r: Row) => credit(r.byModel[m.value]?.creditedConversions ?? 0),
        csv: (r: Row) => r.byModel[m.value]?.creditedConversions ?? 0,
      },
      {
        header: `${m.label}: revenue`,
        numeric: true as const,
        cell: (r: Row) => money(r.byModel[m.value]?.revenue ?? 0),
        csv: (r: Row) => r.byModel[m.value]?.revenue ?? 0,
      },
    ]),
  ];

  return (
    <>
      <PageHeader title="Attribution">
        <SaveInsight
          kind="attribution"
          settings={withFilter({ model, period, ...(goal ? { goal } : {}) }, conditions)}
          suggestedName={`Attribution: ${MODELS.find((m) => m.value === model)!.label}`}
        />
        <GoalPicker value={goal} onChange={setGoal} />
      </PageHeader>
      <FilterBar />
      <div className="form-row">
        <SelectField
          label="Period"
          value={period}
          onChange={(e) => setParam("period", e.target.value)}
          options={[...PERIODS]}
        />
        <SelectField
          label="Model"
          value={model}
          onChange={(e) => setParam("model", e.target.value)}
          options={[...MODELS]}
        />
        <SelectField
          label="By"
          value={by}
          onChange={(e) => setParam("by", e.target.value)}
          options={[...BYS]}
        />
      </div>
      <Card title={`Credit by ${by}: ${MODELS.find((m) => m.value === model)!.label}`}>
        {chosen.isPending ? (
          <PageSkeleton label="Loading attribution" />
        ) : chosen.isError ? (
          <ErrorState error={chosen.error} retry={() => void chosen.refetch()} />
        ) : chosen.data.rows.length === 0 ? (
          <EmptyState title="No conversions in this period">
            Conversions are credited to the channels of the visits before them. Create a conversion goal under
            Goals &amp; beliefs, or send purchase events.
          </EmptyState>
        ) : (
          <DataTable
            caption={`Credited conversions and revenue per ${by}`}
            rows={chosen.data.rows}
            rowKey={(c) => c.value}
            columns={[
              {
                header: byLabel,
                cell: (c) => (by === "channel" ? channelLabel(c.value) : c.value),
                csv: (c) => c.value,
              },
              {
                header: "Credited conversions",
                numeric: true,
                cell: (c) => credit(c.creditedConversions),
                csv: (c) => c.creditedConversions,
              },
              { header: "Revenue", numeric: true, cell: (c) => money(c.revenue), csv: (c) => c.revenue },
            ]}
          />
        )}
      </Card>
      <Card title="All models side by side">
        {failed ? (
          <ErrorState error={failed.error} retry={() => void failed.refetch()} />
        ) : results.some((r) => r.isPending) ? (
          <PageSkeleton label="Loading every model" />
        ) : rows.length === 0 ? (
          <EmptyState title="Nothing to compare yet" />
        ) : (
          <DataTable
            caption={`Credited conversions and revenue per ${by} under every model`}
            rows={rows}
            rowKey={(r) => r.value}
            columns={comparison}
          />
        )}
      </Card>
    </>
  );
}
