import { Chart, preloadChart } from "../../components/Chart";
import { valueLabel } from "../../components/channels";
import { DataTable } from "../../components/DataTable";
import { SelectField } from "../../components/Field";
import { FilterBar } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { useGoal } from "../../components/goal";
import { GoalPicker } from "../../components/GoalPicker";
import { PeriodPicker } from "../../components/PeriodPicker";
import { usePeriod } from "../../components/period";
import { StatTile } from "../../components/StatTile";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { type BreakdownKey, type WebAnswer, type WebBody, useParam, useWeb } from "./model";
import { WebList } from "./WebList";

preloadChart();

const KEYS: { value: BreakdownKey; label: string }[] = [
  { value: "channel", label: "Channel" },
  { value: "source", label: "Source" },
  { value: "utm_source", label: "UTM source" },
  { value: "utm_medium", label: "UTM medium" },
  { value: "utm_campaign", label: "UTM campaign" },
  { value: "utm_term", label: "UTM term" },
  { value: "utm_content", label: "UTM content" },
  { value: "entry_page", label: "Entry page" },
  { value: "exit_page", label: "Exit page" },
  { value: "country", label: "Country" },
  { value: "device", label: "Device" },
  { value: "browser", label: "Browser" },
  { value: "os", label: "OS" },
];
const KEY_VALUES = KEYS.map((k) => k.value);
const labelOfKey = (k: string) => KEYS.find((x) => x.value === k)?.label ?? k;

const percent = (n: number) => `${(n * 100).toFixed(1)}%`;
const seconds = (n: number) =>
  n < 60 ? `${Math.round(n)}s` : `${Math.floor(n / 60)}m ${Math.round(n % 60)}s`;
const decimal = (n: number) => n.toFixed(2);

/** The web view (Plausible's): headline numbers, a chart, the lists and a two-level breakdown. */
export default function WebPage() {
  const [period, setPeriod] = usePeriod();
  const [goal, setGoal] = useGoal();
  const { conditions } = useFilter();
  const [by, setBy] = useParam("by", KEY_VALUES, "channel");
  const [by2, setBy2] = useParam("by2", KEY_VALUES, "device");
  const breakdown: BreakdownKey[] = by === by2 ? [by] : [by, by2];
  const body: WebBody = {
    ...period,
    ...(conditions.length > 0 ? { filter: conditions } : {}),
    ...(goal ? { goal } : {}),
    breakdown,
  } as WebBody;
  const web = useWeb(body);

  return (
    <>
      <PageHeader title="Web">
        <GoalPicker value={goal} onChange={setGoal} />
        <PeriodPicker value={period} onChange={setPeriod} />
      </PageHeader>
      <FilterBar />
      {web.isPending ? (
        <PageSkeleton label="Counting the visits" />
      ) : web.isError ? (
        <ErrorState error={web.error} retry={() => void web.refetch()} />
      ) : (
        <WebView data={web.data} by={by} by2={by2} setBy={setBy} setBy2={setBy2} />
      )}
    </>
  );
}

function WebView({
  data,
  by,
  by2,
  setBy,
  setBy2,
}: {
  data: WebAnswer;
  by: BreakdownKey;
  by2: BreakdownKey;
  setBy: (k: BreakdownKey) => void;
  setBy2: (k: BreakdownKey) => void;
}) {
  const h = data.headline;
  if (h.visits.value === 0 && h.visits.previous === 0)
    return (
      <EmptyState title="No visits in this period yet">
        Add the snippet from Settings to your site, or send page views to <code>POST /api/events</code>.
      </EmptyState>
    );
  const rows = data.breakdown?.rows ?? [];
  return (
    <>
      <section className="tiles" aria-label="Headline numbers">
        <StatTile label="Visitors" value={h.visitors.value} previous={h.visitors.previous} />
        <StatTile label="Visits" value={h.visits.value} previous={h.visits.previous} />
        <StatTile label="Pageviews" value={h.pageviews.value} previous={h.pageviews.previous} />
        <StatTile
          label="Views per visit"
          value={h.viewsPerVisit.value}
          previous={h.viewsPerVisit.previous}
          format={decimal}
        />
        <StatTile
          label="Bounce rate"
          value={h.bounceRate.value}
          previous={h.bounceRate.previous}
          format={percent}
          kind="rate"
          detail="visits with one page view"
        />
        <StatTile
          label="Visit duration"
          value={h.visitDuration.value}
          previous={h.visitDuration.previous}
          format={seconds}
        />
        {data.goal && (
          <StatTile
            label={`Conversions: ${data.goal.name}`}
            value={h.conversions.value}
            previous={h.conversions.previous}
          />
        )}
      </section>
      <Card title="Visitors and pageviews">
        <Chart
          label="Visitors and pageviews per day"
          dates={data.chart.map((p) => p.bucket.slice(0, 10))}
          series={[
            {
              label: "Visitors",
              values: data.chart.map((p) => p.visitors),
              color: "#4f46e5",
              total: `${h.visitors.value.toLocaleString()} in the period`,
            },
            { label: "Pageviews", values: data.chart.map((p) => p.pageviews), color: "#0f766e" },
          ]}
        />
      </Card>
      <div className="web-cards">
        <WebList
          title="Top sources"
          param="sources"
          lists={data.lists}
          tabs={[
            { list: "channels", label: "Channel" },
            { list: "sources", label: "Source" },
            { list: "utm_source", label: "UTM source" },
            { list: "utm_medium", label: "UTM medium" },
            { list: "utm_campaign", label: "UTM campaign" },
            { list: "utm_term", label: "UTM term" },
            { list: "utm_content", label: "UTM content" },
          ]}
        />
        <WebList
          title="Top pages"
          param="pages"
          lists={data.lists}
          tabs={[
            { list: "pages", label: "Page" },
            { list: "entry_pages", label: "Entry page" },
            { list: "exit_pages", label: "Exit page" },
          ]}
        />
        <WebList
          title="Countries"
          param="countries"
          lists={data.lists}
          tabs={[{ list: "countries", label: "Country" }]}
        />
        <WebList
          title="Devices"
          param="devices"
          lists={data.lists}
          tabs={[
            { list: "devices", label: "Device" },
            { list: "browsers", label: "Browser" },
            { list: "os", label: "OS" },
          ]}
        />
      </div>
      <Card title="Breakdown">
        <div className="form-row">
          <SelectField
            label="Group by"
            value={by}
            onChange={(e) => setBy(e.target.value as BreakdownKey)}
            options={KEYS}
          />
          <SelectField
            label="Then by"
            value={by2}
            onChange={(e) => setBy2(e.target.value as BreakdownKey)}
            options={KEYS}
          />
        </div>
        <DataTable
          caption="Visits by two values"
          rows={rows}
          rowKey={(r) => r.values.join("\u0000")}
          columns={[
            ...(data.breakdown?.keys ?? []).map((k, i) => ({
              header: labelOfKey(k),
              cell: (r: (typeof rows)[number]) => valueLabel(k, r.values[i] ?? ""),
              csv: (r: (typeof rows)[number]) => r.values[i] ?? "",
            })),
            {
              header: "Visitors",
              numeric: true,
              cell: (r) => r.visitors.toLocaleString(),
              csv: (r) => r.visitors,
            },
            { header: "Visits", numeric: true, cell: (r) => r.visits.toLocaleString(), csv: (r) => r.visits },
            {
              header: "Pageviews",
              numeric: true,
              cell: (r) => r.pageviews.toLocaleString(),
              csv: (r) => r.pageviews,
            },
            {
              header: "Bounce rate",
              numeric: true,
              cell: (r) => percent(r.bounceRate),
              csv: (r) => r.bounceRate,
            },
            {
              header: "Visit duration",
              numeric: true,
              cell: (r) => seconds(r.visitDuration),
              csv: (r) => r.visitDuration,
            },
          ]}
        />
      </Card>
    </>
  );
}
