import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { CopyButton } from "../../components/CopyButton";
import { DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { EventChecks } from "./EventChecks";
import { type EventType, useSubscriptions, webhookKeys } from "./model";

/** The project's subscriptions; a new one's signing secret is shown once. */
export function SubscriptionsSection() {
  const queryClient = useQueryClient();
  const list = useSubscriptions();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: webhookKeys.all });
  const create = useMutation({
    mutationFn: () => call(api.POST("/api/webhooks", { body: { url, events: events as EventType[] } })),
    onSuccess: () => {
      setUrl("");
      setEvents([]);
      invalidate();
    },
  });
  const toggle = useMutation({
    mutationFn: (w: { id: string; status: "active" | "disabled" }) =>
      call(api.PATCH("/api/webhooks", { body: { id: w.id, status: w.status } })),
    onSettled: invalidate,
  });
  const remove = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/webhooks", { body: { id } })),
    onSettled: invalidate,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };

  return (
    <Card title="Subscriptions">
      <p className="muted">
        Lift POSTs each event you subscribe to, signed with the subscription's secret (Standard Webhooks).
      </p>
      {list.isPending ? (
        <PageSkeleton label="Loading subscriptions" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No subscriptions yet">Add an HTTPS endpoint below.</EmptyState>
      ) : (
        <DataTable
          caption="Webhook subscriptions"
          rows={list.data}
          rowKey={(w) => w.id}
          columns={[
            {
              header: "Endpoint",
              cell: (w) => (
                <Link className="break-all" to={`/webhooks/${w.id}`}>
                  {w.url}
                </Link>
              ),
            },
            { header: "Events", cell: (w) => w.events.join(", ") },
            {
              header: "Status",
              cell: (w) => (
                <>
                  <span className={`badge status-${w.status}`} data-testid="webhook-status">
                    {w.status}
                  </span>
                  {w.disabledReason && <div className="muted small">{w.disabledReason}</div>}
                </>
              ),
            },
            {
              header: "Actions",
              cell: (w) => (
                <div className="form-row tight">
                  <button
                    type="button"
                    className="button secondary small"
                    aria-label={`${w.status === "active" ? "Disable" : "Enable"} ${w.url}`}
                    disabled={toggle.isPending}
                    onClick={() =>
                      toggle.mutate({ id: w.id, status: w.status === "active" ? "disabled" : "active" })
                    }
                  >
                    {w.status === "active" ? "Disable" : "Enable"}
                  </button>
                  <button
                    type="button"
                    className="button danger small"
                    aria-label={`Delete ${w.url}`}
                    disabled={remove.isPending}
                    onClick={() => {
                      if (window.confirm(`Delete the subscription to ${w.url}?`)) remove.mutate(w.id);
                    }}
                  >
                    Delete
                  </button>
                </div>
              ),
            },
          ]}
        />
      )}
      {toggle.isError && <ErrorState title="Not changed" error={toggle.error} />}
      {remove.isError && <ErrorState title="Not deleted" error={remove.error} />}

      <form onSubmit={submit} aria-label="Add a subscription">
        <div className="form-row">
          <Field
            label="Endpoint URL"
            type="url"
            placeholder="https://example.com/hooks/lift"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            required
            maxLength={2048}
          />
        </div>
        <EventChecks events={events} setEvents={setEvents} />
        <button type="submit" className="button" disabled={create.isPending || events.length === 0}>
          Add subscription
        </button>
      </form>
      {create.isError && <ErrorState title="Not added" error={create.error} />}
      {create.isSuccess && (
        <div className="callout ok new-key" role="status">
          <p>
            <strong>Copy the signing secret now: it is not shown again.</strong>
          </p>
          <div className="copy-row">
            <code className="secret break-all" data-testid="webhook-secret">
              {create.data.secret}
            </code>
            <CopyButton text={create.data.secret} label="Copy secret" />
          </div>
        </div>
      )}
    </Card>
  );
}
