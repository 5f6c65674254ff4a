import { useInfiniteQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { FilterBar } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";
import { channelLabel } from "../../components/channels";
import { visitorKeys } from "./model";
import { useRevenueMoney } from "../../components/revenue-money";

const PAGE = 25;

/** Leads, newest first; search by email or id (kept in the URL); more pages on demand. */
export function LeadsSection() {
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const [text, setText] = useState(q);
  const { param: filter } = useFilter();
  const money = useRevenueMoney();
  const leads = useInfiniteQuery({
    queryKey: visitorKeys.leads(q, filter),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      call(
        api.GET("/api/leads", {
          params: {
            query: {
              limit: PAGE,
              filter,
              ...(q ? { q } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const search = (e: FormEvent) => {
    e.preventDefault();
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      if (text.trim()) out.set("q", text.trim());
      else out.delete("q");
      return out;
    });
  };
  const items = leads.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <Card title="Leads">
      <FilterBar />
      <form className="form-row" onSubmit={search} aria-label="Search leads">
        <Field
          label="Email or lead id"
          type="search"
          value={text}
          maxLength={320}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className="button">
          Search
        </button>
      </form>
      {leads.isPending ? (
        <PageSkeleton label="Loading leads" />
      ) : leads.isError ? (
        <ErrorState error={leads.error} retry={() => void leads.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title={q ? `No lead matches “${q}”` : "No leads yet"}>
          {q
            ? "Search by part of an email address, or by a lead's exact id."
            : "A visitor becomes a lead when a form gives their email, or when your server identifies them."}
        </EmptyState>
      ) : (
        <>
          <DataTable
            caption="Leads"
            rows={items}
            rowKey={(l) => l.id}
            columns={[
              {
                header: "Lead",
                cell: (l) => (
                  <Link className="break-all" to={`/visitors/leads/${encodeURIComponent(l.id)}`}>
                    {l.email ?? l.id}
                  </Link>
                ),
              },
              {
                header: "First touch",
                cell: (l) =>
                  [l.firstTouch.channel && channelLabel(l.firstTouch.channel), l.firstTouch.source]
                    .filter(Boolean)
                    .join(" / ") || "—",
              },
              { header: "Visitors", numeric: true, cell: (l) => l.visitors, csv: (l) => l.visitors },
              { header: "Conversions", numeric: true, cell: (l) => l.conversions, csv: (l) => l.conversions },
              { header: "Revenue", numeric: true, cell: (l) => money(l.revenue), csv: (l) => l.revenue },
              {
                header: "Since",
                cell: (l) => new Date(l.createdAt).toLocaleDateString(),
                csv: (l) => l.createdAt,
              },
            ]}
          />
          {leads.hasNextPage && (
            <button
              type="button"
              className="button secondary"
              disabled={leads.isFetchingNextPage}
              onClick={() => void leads.fetchNextPage()}
            >
              {leads.isFetchingNextPage ? "Loading…" : "Load more"}
            </button>
          )}
        </>
      )}
    </Card>
  );
}
