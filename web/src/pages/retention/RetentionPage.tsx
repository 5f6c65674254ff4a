import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useSearchParams } from "react-router";
import { api, call } from "../../api/client";
import { Field, SelectField } from "../../components/Field";
import { PeriodPicker } from "../../components/PeriodPicker";
import { FilterBar } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { usePeriod } from "../../components/period";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { SaveInsight, withFilter } from "../../components/SaveInsight";
import { analyticsKeys } from "../../components/analyticsKeys";

const INTERVALS = [
  { value: "week", label: "Weekly" },
  { value: "day", label: "Daily" },
] as const;
type Interval = (typeof INTERVALS)[number]["value"];

const percent = (n: number, of: number) => (of > 0 ? `${Math.round((n / of) * 100)}%` : "–");

/**
 * The heat map's shade for a share: seven steps whose text colour keeps 4.5:1 contrast (dark text
 * up to step 4, white from step 5), so the colour adds to the number and never hides it.
 */
const HEAT_STEPS = [0, 0.1, 0.2, 0.35, 0.5, 0.7] as const;
const heat = (n: number, of: number) =>
  of > 0 ? `heat heat-${HEAT_STEPS.filter((t) => n / of >= t && (t > 0 || n > 0)).length}` : "heat";

/** Retention: cohorts by a person's first start event, and the share back in each later interval. */
export default function RetentionPage() {
  const [period, setPeriod] = usePeriod();
  const { param: filter, conditions } = useFilter();
  const [params, setParams] = useSearchParams();
  const interval = (INTERVALS.find((i) => i.value === params.get("interval"))?.value ?? "week") as Interval;
  const startEvent = params.get("startEvent") ?? "";
  const returnEvent = params.get("returnEvent") ?? "";
  const [draft, setDraft] = useState({ startEvent, returnEvent });
  const update = (next: Record<string, string>) =>
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      for (const [k, v] of Object.entries(next)) v ? out.set(k, v) : out.delete(k);
      return out;
    });
  const retention = useQuery({
    queryKey: analyticsKeys.retention(period, { interval, startEvent, returnEvent }, filter),
    queryFn: () =>
      call(
        api.GET("/api/analytics/retention", {
          params: {
            query: {
              ...period,
              interval,
              filter,
              ...(startEvent ? { startEvent } : {}),
              ...(returnEvent ? { returnEvent } : {}),
            },
          },
        }),
      ),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update({ startEvent: draft.startEvent.trim(), returnEvent: draft.returnEvent.trim() });
  };
  const cohorts = retention.data?.cohorts ?? [];
  const partialFirst = retention.data?.partialFirst ?? false;
  const partialLast = retention.data?.partialLast ?? false;
  const width = cohorts.reduce((n, c) => Math.max(n, c.returned.length), 0);
  const unit = interval === "week" ? "Week" : "Day";
  // Interval offsets 0..width-1: the columns.
  const offsets = Array.from({ length: width }, (_, k) => k);

  return (
    <>
      <PageHeader title="Retention">
        <SaveInsight
          kind="retention"
          settings={withFilter(
            {
              ...period,
              interval,
              ...(startEvent ? { startEvent } : {}),
              ...(returnEvent ? { returnEvent } : {}),
            },
            conditions,
          )}
          suggestedName={`Retention after ${startEvent || "pageview"}`}
        />
        <PeriodPicker value={period} onChange={setPeriod} />
      </PageHeader>
      <FilterBar />
      <form className="form-row" onSubmit={submit} aria-label="Retention settings">
        <SelectField
          label="Interval"
          value={interval}
          onChange={(e) => update({ interval: e.target.value })}
          options={[...INTERVALS]}
        />
        <Field
          label="Start event"
          placeholder="pageview"
          maxLength={200}
          value={draft.startEvent}
          onChange={(e) => setDraft({ ...draft, startEvent: e.target.value })}
        />
        <Field
          label="Return event"
          placeholder="any event"
          maxLength={200}
          value={draft.returnEvent}
          onChange={(e) => setDraft({ ...draft, returnEvent: e.target.value })}
        />
        <button type="submit" className="button">
          Apply
        </button>
      </form>
      <Card
        title="Cohorts"
        actions={
          <p className="heat-legend muted" aria-hidden="true">
            Back: <span className="heat heat-1">1%</span> <span className="heat heat-3">20%</span>{" "}
            <span className="heat heat-5">50%</span> <span className="heat heat-6">70%+</span>
          </p>
        }
      >
        {retention.isPending ? (
          <PageSkeleton label="Loading retention" />
        ) : retention.isError ? (
          <ErrorState error={retention.error} retry={() => void retention.refetch()} />
        ) : cohorts.every((c) => c.size === 0) ? (
          <EmptyState title="Nobody started in this period">
            A person joins a cohort with their first start event ({startEvent || "pageview"}).
          </EmptyState>
        ) : (
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
          <section className="table-scroll" aria-label="Retention cohorts" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Cohort</th>
                  <th scope="col" className="num">
                    People
                  </th>
                  {offsets.map((k) => (
                    <th key={k} scope="col" className="num">
                      {unit} {k}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {cohorts.map((c, row) => (
                  <tr key={c.start}>
                    <th scope="row">
                      {c.start}
                      {row === 0 && partialFirst ? <Partial /> : null}
                    </th>
                    <td className="num">{c.size.toLocaleString()}</td>
                    {offsets.map((k) => (
                      <td
                        key={k}
                        className={
                          c.returned[k] !== undefined ? `num ${heat(c.returned[k]!, c.size)}` : "num"
                        }
                        title={
                          c.returned[k] === undefined
                            ? undefined
                            : partialLast && k === c.returned.length - 1
                              ? `${c.returned[k]} people so far: this ${unit.toLowerCase()} is not over`
                              : `${c.returned[k]} people`
                        }
                      >
                        {c.returned[k] !== undefined ? percent(c.returned[k]!, c.size) : ""}
                        {partialLast && k === c.returned.length - 1 ? <Partial /> : null}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
            {partialFirst || partialLast ? (
              <p className="muted small" data-testid="retention-partial">
                * Partial {unit.toLowerCase()}:{" "}
                {[
                  partialFirst ? `the first cohort counts only from ${retention.data?.period.from}` : "",
                  partialLast
                    ? `the last ${unit.toLowerCase()} is not over, so its cells count people so far`
                    : "",
                ]
                  .filter(Boolean)
                  .join("; ")}
                .
              </p>
            ) : null}
          </section>
        )}
      </Card>
    </>
  );
}

/** The mark of an interval the period cuts (explained under the table). */
function Partial() {
  return (
    <abbr className="partial-mark" title="partial: see the note under the table">
      *
    </abbr>
  );
}
