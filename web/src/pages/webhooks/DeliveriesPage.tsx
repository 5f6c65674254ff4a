import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { type ApiData, api, call } from "../../api/client";
import { EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { SubscriptionEditor } from "./SubscriptionEditor";
import { useSubscriptions, webhookKeys } from "./model";

type Delivery = ApiData<"/api/webhooks/{id}/deliveries", "get">["data"][number];

const at = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

/** One subscription's delivery log: each delivery with its attempts, and a retry button. */
export function DeliveriesPage() {
  const { id = "" } = useParams();
  const queryClient = useQueryClient();
  const subs = useSubscriptions();
  const sub = subs.data?.find((w) => w.id === id);
  const key = webhookKeys.deliveries(id);
  const log = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) =>
      call(
        api.GET("/api/webhooks/{id}/deliveries", {
          params: { path: { id }, query: { limit: 20, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // A retried delivery is pending until the worker sends it: look again while any is pending.
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.data.some((d) => d.status === "pending")) ? 2000 : false,
  });
  const retry = useMutation({
    mutationFn: (deliveryId: string) =>
      call(
        api.POST("/api/webhooks/{id}/deliveries/{deliveryId}/retry", {
          params: { path: { id, deliveryId } },
        }),
      ),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  const deliveries = log.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      <PageHeader title="Deliveries">
        <Link to="/webhooks">All webhooks</Link>
      </PageHeader>
      {sub && (
        <p className="break-all">
          To <code>{sub.url}</code> ({sub.status})
        </p>
      )}
      {sub && <SubscriptionEditor key={sub.id} sub={sub} />}
      <button type="button" className="button secondary small" onClick={() => void log.refetch()}>
        Refresh
      </button>
      {log.isPending ? (
        <PageSkeleton label="Loading deliveries" />
      ) : log.isError ? (
        <ErrorState error={log.error} retry={() => void log.refetch()} />
      ) : deliveries.length === 0 ? (
        <EmptyState title="No deliveries yet">
          Deliveries appear here when a subscribed event happens.
        </EmptyState>
      ) : (
        <ul className="plain-list" aria-label="Deliveries">
          {deliveries.map((d) => (
            <DeliveryItem key={d.id} d={d} onRetry={() => retry.mutate(d.id)} busy={retry.isPending} />
          ))}
        </ul>
      )}
      {retry.isError && <ErrorState title="Not retried" error={retry.error} />}
      {log.hasNextPage && (
        <button
          type="button"
          className="button secondary"
          disabled={log.isFetchingNextPage}
          onClick={() => void log.fetchNextPage()}
        >
          Older deliveries
        </button>
      )}
    </>
  );
}

function DeliveryItem({ d, onRetry, busy }: { d: Delivery; onRetry: () => void; busy: boolean }) {
  return (
    <li className="card delivery" data-testid="delivery">
      <div className="card-header">
        <h2>
          {d.eventType} <span className={`badge status-${d.status}`}>{d.status}</span>
        </h2>
        <button
          type="button"
          className="button secondary small"
          disabled={busy || d.status === "pending"}
          onClick={onRetry}
        >
          Retry<span className="visually-hidden"> delivery {d.eventId}</span>
        </button>
      </div>
      <p className="muted small break-all">
        Event {d.eventId} · created {at(d.createdAt)} · {d.attemptCount} attempt
        {d.attemptCount === 1 ? "" : "s"}
      </p>
      {d.lastError && <p className="form-error">Last error: {d.lastError}</p>}
      {d.attempts.length > 0 && (
        <ol className="timeline" aria-label={`Attempts of ${d.eventId}`}>
          {d.attempts.map((a) => (
            <li key={a.attempt}>
              Attempt {a.attempt}: {a.succeeded ? "succeeded" : "failed"}
              {a.statusCode !== null && ` (HTTP ${a.statusCode})`} in {a.durationMs} ms at {at(a.createdAt)}
              {a.error && ` — ${a.error}`}
            </li>
          ))}
        </ol>
      )}
    </li>
  );
}
