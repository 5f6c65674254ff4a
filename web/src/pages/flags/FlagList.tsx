import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Field, SelectField } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { type Flag, flagKeys, shortValue, useFlags } from "./model";
import { SdkSettings } from "./SdkSettings";
import { Switch } from "./Switch";

/** Every flag of the project: search and tag filter (kept in the URL), and each flag's on/off switch. */
export function FlagList() {
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const tag = params.get("tag") ?? "";
  const flags = useFlags();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: ({ key, enabled }: { key: string; enabled: boolean }) =>
      call(api.PATCH("/api/flags/{key}", { params: { path: { key } }, body: { enabled } })),
    onSuccess: (saved) => {
      queryClient.setQueryData(flagKeys.one(saved.key), saved);
      void queryClient.invalidateQueries({ queryKey: flagKeys.all });
    },
  });
  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };

  const tags = [...new Set((flags.data ?? []).flatMap((f) => f.tags))].sort();
  const needle = q.trim().toLowerCase();
  const shown = (flags.data ?? []).filter(
    (f) =>
      (!tag || f.tags.includes(tag)) &&
      (!needle || f.key.includes(needle) || (f.description ?? "").toLowerCase().includes(needle)),
  );

  return (
    <>
      <PageHeader title="Feature flags">
        <Link className="button" to="/flags/new">
          New flag
        </Link>
      </PageHeader>
      <Card>
        <div className="form-row">
          <Field label="Search" type="search" value={q} onChange={(e) => setParam("q", e.target.value)} />
          <SelectField
            label="Tag"
            value={tag}
            onChange={(e) => setParam("tag", e.target.value)}
            options={[{ value: "", label: "All tags" }, ...tags.map((t) => ({ value: t, label: t }))]}
          />
        </div>
        {toggle.isError && <ErrorState title="Not switched" error={toggle.error} />}
        {flags.isPending ? (
          <PageSkeleton label="Loading flags" />
        ) : flags.isError ? (
          <ErrorState error={flags.error} retry={() => void flags.refetch()} />
        ) : flags.data.length === 0 ? (
          <EmptyState
            title="No flags yet"
            action={
              <Link className="button" to="/flags/new">
                Create your first flag
              </Link>
            }
          >
            A flag turns a feature on for some users — by rule, by percentage, or as an experiment's variants
            — served to GrowthBook's SDKs.
          </EmptyState>
        ) : shown.length === 0 ? (
          <EmptyState title="No flag matches">Change the search or the tag.</EmptyState>
        ) : (
          <DataTable
            caption="Feature flags"
            rows={shown}
            rowKey={(f) => f.id}
            columns={[
              {
                header: "On",
                cell: (f: Flag) => (
                  <Switch
                    checked={f.enabled}
                    hideLabel
                    label={`${f.key} enabled`}
                    disabled={toggle.isPending}
                    onChange={(enabled) => toggle.mutate({ key: f.key, enabled })}
                  />
                ),
              },
              {
                header: "Key",
                cell: (f) => (
                  <>
                    <Link to={`/flags/${encodeURIComponent(f.key)}`}>{f.key}</Link>
                    {f.description && <div className="muted small">{f.description}</div>}
                  </>
                ),
              },
              { header: "Type", cell: (f) => f.valueType },
              { header: "Default", cell: (f) => <code>{shortValue(f.defaultValue)}</code> },
              { header: "Rules", numeric: true, cell: (f) => f.rules.length, csv: (f) => f.rules.length },
              {
                header: "Tags",
                cell: (f) => (
                  <span className="tags">
                    {f.tags.map((t) => (
                      <span key={t} className="tag">
                        {t}
                      </span>
                    ))}
                  </span>
                ),
              },
              { header: "Changed", cell: (f) => new Date(f.updatedAt).toLocaleString() },
            ]}
          />
        )}
      </Card>
      <SdkSettings />
    </>
  );
}
