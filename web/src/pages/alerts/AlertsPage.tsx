import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { AlertForm } from "./AlertForm";
import { type Alert, alertKeys, conditionText, seriesText } from "./model";

const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;
const num = (v: number | null) => (v === null ? "–" : v.toLocaleString());

/** An alert's firings, newest first, with each mail's outcome. */
function Firings({ alert }: { alert: Alert }) {
  const firings = useQuery({
    queryKey: alertKeys.firings(alert.id),
    queryFn: () =>
      call(api.GET("/api/alerts/{id}/firings", { params: { path: { id: alert.id }, query: { limit: 20 } } })),
  });
  if (firings.isPending) return <p className="muted small">Loading its firings…</p>;
  if (firings.isError) return <ErrorState error={firings.error} />;
  if (firings.data.items.length === 0) return <p className="muted small">It has not fired yet.</p>;
  return (
    <DataTable
      caption={`Firings of ${alert.name}`}
      rows={firings.data.items}
      rowKey={(f) => f.id}
      columns={[
        { header: "Bucket", cell: (f) => f.bucket.slice(0, 10) },
        { header: "Value", numeric: true, cell: (f) => num(f.value), csv: (f) => f.value },
        { header: "Before", numeric: true, cell: (f) => num(f.previousValue), csv: (f) => f.previousValue },
        { header: "Condition", cell: (f) => conditionText(f.condition) },
        { header: "Fired", cell: (f) => when(f.firedAt) },
        {
          header: "Email",
          cell: (f) => (f.email.length === 0 ? "–" : f.email.map((e) => `${e.to}: ${e.status}`).join(", ")),
        },
      ]}
    />
  );
}

/** One alert: what it watches, its state, check now, pause, delete, and its firings. */
function AlertCard({ alert }: { alert: Alert }) {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: alertKeys.all });
  const check = useMutation({
    mutationFn: () => call(api.POST("/api/alerts/{id}/check", { params: { path: { id: alert.id } } })),
    onSuccess: refresh,
  });
  const toggle = useMutation({
    mutationFn: () =>
      call(
        api.PATCH("/api/alerts/{id}", {
          params: { path: { id: alert.id } },
          body: { enabled: !alert.enabled },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE("/api/alerts/{id}", { params: { path: { id: alert.id } } })),
    onSuccess: refresh,
  });
  const error = check.error ?? toggle.error ?? remove.error;
  return (
    <Card title={alert.name}>
      <p>
        {seriesText(alert)}, {conditionText(alert.condition)}
        {!alert.enabled && " (paused)"}
      </p>
      <p className="muted small">
        {alert.state.lastBucket
          ? `Last checked bucket ${alert.state.lastBucket.slice(0, 10)}: ${num(alert.state.lastValue)}${alert.state.crossed ? ", crossed" : ""}.`
          : "Not checked yet."}{" "}
        Mails {alert.notify.emails.length > 0 ? alert.notify.emails.join(", ") : "nobody"}
        {alert.notify.webhook ? "; sends alert.fired" : ""}.
      </p>
      <div className="page-actions">
        <button
          type="button"
          className="button secondary"
          onClick={() => check.mutate()}
          disabled={check.isPending}
        >
          Check now
        </button>
        <button type="button" className="button secondary" onClick={() => toggle.mutate()}>
          {alert.enabled ? "Pause" : "Resume"}
        </button>
        <button
          type="button"
          className="button danger"
          onClick={() => {
            if (window.confirm(`Delete the alert “${alert.name}” and its history?`)) remove.mutate();
          }}
        >
          Delete
        </button>
      </div>
      {check.data && (
        <p role="status" className="small">
          {check.data.bucket.slice(0, 10)}: {num(check.data.value)}
          {check.data.fired
            ? " — fired"
            : check.data.crossed
              ? " — still crossed, no new firing"
              : " — within the line"}
          .
        </p>
      )}
      {error && <ErrorState error={error} />}
      <Firings alert={alert} />
    </Card>
  );
}

/** Alerts: a threshold or a change on one trend series, checked on a schedule (docs/alerts.md). */
export default function AlertsPage() {
  const [creating, setCreating] = useState(false);
  const alerts = useQuery({
    queryKey: alertKeys.list,
    queryFn: () => call(api.GET("/api/alerts", { params: { query: { limit: 200 } } })),
  });
  const header = (
    <PageHeader title="Alerts">
      {!creating && (
        <button type="button" className="button" onClick={() => setCreating(true)}>
          New alert
        </button>
      )}
    </PageHeader>
  );
  if (alerts.isPending)
    return (
      <>
        {header}
        <PageSkeleton />
      </>
    );
  if (alerts.isError)
    return (
      <>
        {header}
        <ErrorState error={alerts.error} retry={() => void alerts.refetch()} />
      </>
    );
  return (
    <>
      {header}
      {creating && (
        <Card title="New alert">
          <AlertForm onDone={() => setCreating(false)} />
        </Card>
      )}
      {alerts.data.items.length === 0 && !creating ? (
        <EmptyState title="No alert yet">
          An alert watches one trend series and mails you when it crosses a line, such as signups down 30%
          from the day before.
        </EmptyState>
      ) : (
        alerts.data.items.map((a) => <AlertCard key={a.id} alert={a} />)
      )}
    </>
  );
}
