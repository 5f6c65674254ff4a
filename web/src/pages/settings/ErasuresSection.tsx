import { useInfiniteQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { settingsKeys } from "./model";

const PAGE = 25;

/**
 * The current project's erasures (privacy requests carried out), newest first: who asked, when and
 * how much went. The records hold nothing about the person; admins only, as the API is.
 */
export function ErasuresSection() {
  const erasures = useInfiniteQuery({
    queryKey: settingsKeys.erasures,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      call(
        api.GET("/api/erasures", {
          params: { query: { limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = erasures.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card title="Erasures">
      {erasures.isPending ? (
        <PageSkeleton label="Loading erasures" />
      ) : erasures.isError ? (
        <ErrorState error={erasures.error} retry={() => void erasures.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title="No erasures yet">
          Erase a lead from its page, or call <code>DELETE /api/leads/:id</code> or{" "}
          <code>DELETE /api/identity?visitorId=</code>. Each erasure is recorded here without personal data.
        </EmptyState>
      ) : (
        <>
          <DataTable
            caption="Erasures"
            rows={items}
            rowKey={(e) => e.id}
            columns={[
              { header: "When", cell: (e) => new Date(e.erasedAt).toLocaleString(), csv: (e) => e.erasedAt },
              { header: "Subject", cell: (e) => e.subject },
              {
                header: "By",
                cell: (e) =>
                  e.erasedBy.kind === "user" ? `user ${e.erasedBy.id}` : `API key ${e.erasedBy.id}`,
              },
              {
                header: "Events",
                numeric: true,
                cell: (e) => e.removed.events.toLocaleString(),
                csv: (e) => e.removed.events,
              },
              {
                header: "Visitors",
                numeric: true,
                cell: (e) => e.removed.visitors,
                csv: (e) => e.removed.visitors,
              },
              {
                header: "Conversions",
                numeric: true,
                cell: (e) => e.removed.conversions,
                csv: (e) => e.removed.conversions,
              },
            ]}
          />
          {erasures.hasNextPage && (
            <button
              type="button"
              className="button secondary"
              disabled={erasures.isFetchingNextPage}
              onClick={() => void erasures.fetchNextPage()}
            >
              Load more
            </button>
          )}
        </>
      )}
    </Card>
  );
}
