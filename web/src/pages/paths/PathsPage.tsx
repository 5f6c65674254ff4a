import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useSearchParams } from "react-router";
import { DataTable } from "../../components/DataTable";
import { Field, SelectField } from "../../components/Field";
import { FilterBar } from "../../components/FilterBar";
import { useFilter } from "../../components/filter";
import { PeriodPicker } from "../../components/PeriodPicker";
import { useEventSuggestions } from "../../components/pickers";
import { usePeriod } from "../../components/period";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { SuggestField } from "../../components/SuggestField";
import { FlowChart } from "./FlowChart";
import { fetchPaths, pathsBody, pathsKey, settingsOf } from "./model";
import { SaveInsight } from "../../components/SaveInsight";

/** Paths: the most common steps after (or before) a page or event, as a flow and a table. */
export default function PathsPage() {
  const [period, setPeriod] = usePeriod();
  const filter = useFilter();
  const [params, setParams] = useSearchParams();
  const settings = settingsOf(params);
  const [draft, setDraft] = useState(settings);
  const events = useEventSuggestions(draft.event);
  const paths = useQuery({
    queryKey: pathsKey(settings, period, filter.param),
    queryFn: () => fetchPaths(settings, period, filter.conditions),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      out.set("event", draft.event.trim() || "pageview");
      if (draft.page.trim()) out.set("page", draft.page.trim());
      else out.delete("page");
      out.set("direction", draft.direction);
      out.set("steps", String(draft.steps));
      return out;
    });
  };
  const before = settings.direction === "before";
  return (
    <>
      <PageHeader title="Paths">
        <SaveInsight
          kind="paths"
          settings={pathsBody(settings, period, filter.conditions)}
          suggestedName={`Paths ${settings.direction} ${settings.page || settings.event}`}
        />
        <PeriodPicker value={period} onChange={setPeriod} />
      </PageHeader>
      <FilterBar />
      <form className="form-row" onSubmit={submit} aria-label="Paths settings">
        <SuggestField
          label="Start event"
          required
          maxLength={200}
          value={draft.event}
          suggestions={events}
          onChange={(e) => setDraft({ ...draft, event: e.target.value })}
        />
        <Field
          label="Start page path (optional)"
          placeholder="/pricing"
          maxLength={500}
          value={draft.page}
          onChange={(e) => setDraft({ ...draft, page: e.target.value })}
        />
        <SelectField
          label="Direction"
          value={draft.direction}
          onChange={(e) =>
            setDraft({ ...draft, direction: e.target.value === "before" ? "before" : "after" })
          }
          options={[
            { value: "after", label: "Paths after it" },
            { value: "before", label: "Paths that led to it" },
          ]}
        />
        <SelectField
          label="Steps"
          value={String(draft.steps)}
          onChange={(e) => setDraft({ ...draft, steps: Number(e.target.value) })}
          options={[1, 2, 3, 4, 5].map((n) => ({ value: String(n), label: String(n) }))}
        />
        <button type="submit" className="button">
          Show paths
        </button>
      </form>
      <Card title={`Paths ${before ? "before" : "after"} ${settings.page || settings.event}`}>
        {paths.isPending ? (
          <PageSkeleton label="Loading the paths" />
        ) : paths.isError ? (
          <ErrorState error={paths.error} retry={() => void paths.refetch()} />
        ) : paths.data.sessions === 0 ? (
          <EmptyState title="No session reached this start in the period">
            Choose another page or event, or a longer period.
          </EmptyState>
        ) : (
          <>
            <p className="muted period-note">
              {paths.data.sessions.toLocaleString()} sessions reached {paths.data.start},{" "}
              {paths.data.period.from} to {paths.data.period.to} (UTC).
            </p>
            <FlowChart
              start={paths.data.start}
              sessions={paths.data.sessions}
              links={paths.data.links}
              steps={settings.steps}
              before={before}
            />
            <DataTable
              caption="Drop-off per step"
              rows={paths.data.levels}
              rowKey={(l) => String(l.step)}
              columns={[
                { header: "Step", cell: (l) => `${l.step} ${before ? "before" : "after"}` },
                {
                  header: "Sessions",
                  numeric: true,
                  cell: (l) => l.sessions.toLocaleString(),
                  csv: (l) => l.sessions,
                },
                {
                  header: "Ended",
                  numeric: true,
                  cell: (l) => l.dropOff.toLocaleString(),
                  csv: (l) => l.dropOff,
                },
              ]}
            />
            <DataTable
              caption="Most common paths"
              rows={paths.data.paths}
              rowKey={(p) => p.nodes.join(" → ")}
              columns={[
                { header: "Path", cell: (p) => (before ? [...p.nodes].reverse() : p.nodes).join(" → ") },
                {
                  header: "Sessions",
                  numeric: true,
                  cell: (p) => p.sessions.toLocaleString(),
                  csv: (p) => p.sessions,
                },
              ]}
            />
          </>
        )}
      </Card>
    </>
  );
}
