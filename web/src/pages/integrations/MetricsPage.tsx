import { useQuery } from "@tanstack/react-query";
import { Link, useParams, useSearchParams } from "react-router";
import { type ApiData, api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { StatTile } from "../../components/StatTile";
import { EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { KINDS, kindLabel } from "./kinds";
import { integrationKeys } from "./model";

type Period = "7d" | "30d" | "90d";
const PERIODS: { value: Period; label: string }[] = [
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
  { value: "90d", label: "90 days" },
];

type Metrics = ApiData<"/api/metrics/{connectorType}", "get">;

const LABELS: Record<string, string> = {
  spend: "Spend",
  impressions: "Impressions",
  clicks: "Clicks",
  conversions: "Conversions",
  revenue: "Revenue",
  sessions: "Sessions",
  cpa: "Cost per acquisition",
  roas: "Return on ad spend",
  mrr: "MRR",
  expenses: "Expenses",
  netIncome: "Net income",
};

/** One connector's metrics over 7, 30 or 90 days, with its campaigns (channels for web analytics). */
export function MetricsPage() {
  const { type = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const period = (
    PERIODS.some((p) => p.value === params.get("period")) ? params.get("period") : "30d"
  ) as Period;
  const known = KINDS.some((k) => k.type === type);
  const metrics = useQuery({
    queryKey: integrationKeys.metrics(type, period),
    queryFn: () =>
      call(
        api.GET("/api/metrics/{connectorType}", {
          params: { path: { connectorType: type as never }, query: { period } },
        }),
      ),
    enabled: known,
  });

  return (
    <>
      <PageHeader title={`${kindLabel(type)} metrics`}>
        <Link to="/integrations">All integrations</Link>
      </PageHeader>
      <fieldset className="segmented">
        <legend className="visually-hidden">Period</legend>
        {PERIODS.map((p) => (
          <label key={p.value} className={p.value === period ? "on" : undefined}>
            <input
              type="radio"
              name="metrics-period"
              value={p.value}
              checked={p.value === period}
              onChange={() => setParams({ period: p.value })}
            />
            {p.label}
          </label>
        ))}
      </fieldset>
      {!known ? (
        <EmptyState title="Unknown connector" action={<Link to="/integrations">Back to integrations</Link>} />
      ) : metrics.isPending ? (
        <PageSkeleton label="Loading metrics" />
      ) : metrics.isError ? (
        <ErrorState error={metrics.error} retry={() => void metrics.refetch()} />
      ) : (
        <MetricsView m={metrics.data} />
      )}
    </>
  );
}

function MetricsView({ m }: { m: Metrics }) {
  const numbers = Object.entries(m).filter(
    (e): e is [string, number | null] => e[0] in LABELS && (typeof e[1] === "number" || e[1] === null),
  );
  const campaigns = m.campaigns;
  const web = m.connectorType === "web_analytics";
  return (
    <>
      <p className="muted period-note">
        {m.period.from} to {m.period.to} (UTC)
      </p>
      <div className="tiles">
        {numbers.map(([k, v]) =>
          v === null ? (
            <div className="tile" key={k}>
              <div className="tile-label">{LABELS[k]}</div>
              <div className="tile-value">—</div>
            </div>
          ) : (
            <StatTile key={k} label={LABELS[k]!} value={v} />
          ),
        )}
      </div>
      {campaigns &&
        (campaigns.length === 0 ? (
          <EmptyState title={web ? "No channels in this period" : "No campaigns in this period"}>
            Sync the connector to fetch its data.
          </EmptyState>
        ) : (
          <DataTable
            caption={web ? "Channels" : "Campaigns"}
            rows={campaigns}
            rowKey={(c) => c.name}
            columns={[
              { header: web ? "Channel" : "Campaign", cell: (c) => c.name },
              web
                ? {
                    header: "Sessions",
                    cell: (c) => (c.sessions ?? 0).toLocaleString(),
                    numeric: true,
                    csv: (c) => c.sessions ?? 0,
                  }
                : {
                    header: "Spend",
                    cell: (c) => (c.spend ?? 0).toLocaleString(),
                    numeric: true,
                    csv: (c) => c.spend ?? 0,
                  },
              {
                header: "Conversions",
                cell: (c) => c.conversions.toLocaleString(),
                numeric: true,
                csv: (c) => c.conversions,
              },
            ]}
          />
        ))}
    </>
  );
}
