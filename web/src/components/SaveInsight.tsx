import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { Link } from "react-router";
import { api, call } from "../api/client";
import type { paths } from "../api/schema";
import { ErrorState } from "./states";
import { insightKeys } from "./insights";

/** A report's settings with the page's filter, when it has one (the API's `filter` array). */
export const withFilter = <T extends object>(settings: T, filter: unknown[]) =>
  filter.length > 0 ? { ...settings, filter } : settings;

type CreateBody = paths["/api/insights"]["post"]["requestBody"]["content"]["application/json"];
export type InsightKind = CreateBody["kind"];

/**
 * "Save as insight" on a report page: the report's settings as the page asked the API for them
 * (period, filter and the report's own), under a name, for dashboards.
 */
export function SaveInsight({
  kind,
  settings,
  suggestedName,
}: {
  kind: InsightKind;
  /** the report's query or body; undefined while there is nothing to save (no funnel yet) */
  settings: object | undefined;
  suggestedName: string;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const save = useMutation({
    mutationFn: () =>
      call(api.POST("/api/insights", { body: { kind, name: name.trim(), settings } as CreateBody })),
    onSuccess: () => {
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: insightKeys.all });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <div className="save-insight">
      {!open && (
        <button
          type="button"
          className="button secondary"
          disabled={!settings}
          onClick={() => {
            setName(suggestedName);
            save.reset();
            setOpen(true);
          }}
        >
          Save as insight
        </button>
      )}
      {open && (
        <form className="save-insight-form" onSubmit={submit} aria-label="Save as insight">
          <label htmlFor={id}>Insight name</label>
          <input id={id} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit" className="button" disabled={save.isPending}>
            Save
          </button>
          <button type="button" className="button secondary" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </form>
      )}
      {save.isSuccess && (
        <p role="status" className="ok-text small">
          Saved “{save.data.name}”. <Link to="/dashboards">Add it to a dashboard</Link>
        </p>
      )}
      {save.isError && <ErrorState title="Not saved" error={save.error} />}
    </div>
  );
}
