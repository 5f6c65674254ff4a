import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useDeferredValue, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api, call } from "../../api/client";
import { Field } from "../../components/Field";
import { Card, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { CohortConditions } from "./CohortConditions";
import { CohortMembers } from "./CohortMembers";
import {
  type Cohort,
  type DraftCondition,
  cohortKeys,
  fetchCohort,
  newEventCondition,
  previewCount,
  toDefinition,
  toDraft,
} from "./model";

/** A new cohort, or a saved one: name, conditions, the live count as you edit, and its members. */
export function CohortEditor() {
  const { id } = useParams();
  const cohort = useQuery({
    queryKey: cohortKeys.detail(id ?? ""),
    queryFn: () => fetchCohort(id!),
    enabled: id !== undefined,
  });
  if (id && cohort.isPending) return <PageSkeleton />;
  if (id && cohort.isError) return <ErrorState error={cohort.error} />;
  return <EditorForm key={id ?? "new"} cohort={id ? cohort.data : undefined} />;
}

function EditorForm({ cohort }: { cohort?: Cohort }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState(cohort?.name ?? "");
  const [draft, setDraft] = useState<DraftCondition[]>(
    cohort ? toDraft(cohort.definition) : [newEventCondition()],
  );
  const [trustBrowser, setTrustBrowser] = useState(cohort?.trustBrowserProperties ?? false);
  const definition = toDefinition(draft);
  const shown = useDeferredValue(definition);
  const preview = useQuery({
    queryKey: cohortKeys.preview(shown),
    queryFn: () => previewCount(shown!),
    enabled: shown !== null,
  });
  const save = useMutation({
    mutationFn: () =>
      cohort
        ? call(
            api.PATCH("/api/cohorts/{id}", {
              params: { path: { id: cohort.id } },
              body: { name: name.trim(), definition: definition!, trustBrowserProperties: trustBrowser },
            }),
          )
        : call(
            api.POST("/api/cohorts", {
              body: { name: name.trim(), definition: definition!, trustBrowserProperties: trustBrowser },
            }),
          ),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: cohortKeys.all });
      navigate("/cohorts");
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (definition) save.mutate();
  };
  return (
    <>
      <PageHeader title={cohort ? `Cohort: ${cohort.name}` : "New cohort"}>
        <Link to="/cohorts">All cohorts</Link>
      </PageHeader>
      <Card title="Definition">
        <form onSubmit={submit} aria-label="Cohort definition">
          <Field
            label="Cohort name"
            required
            maxLength={200}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <p className="muted">
            People in the cohort meet every condition. A person is a lead (all its visitors), or an anonymous
            visitor.
          </p>
          <CohortConditions draft={draft} onChange={setDraft} />
          <p className="cohort-count" aria-live="polite">
            {definition === null
              ? "Complete the conditions to count the people."
              : preview.isPending
                ? "Counting…"
                : preview.isError
                  ? preview.error.message
                  : `${preview.data.count.toLocaleString()} ${preview.data.count === 1 ? "person" : "people"} now`}
          </p>
          <div className="check-field">
            <label>
              <input
                type="checkbox"
                checked={trustBrowser}
                onChange={(e) => setTrustBrowser(e.target.checked)}
                aria-describedby="cohort-trust-hint"
              />{" "}
              Flags count lead properties written from the browser
            </label>
            <small id="cohort-trust-hint" className="muted">
              For flag targeting, a lead property counts only when your servers set it (a secret key, a
              connector, an incoming webhook). Properties written from the browser with the public key, which
              anyone can send, count as missing unless this is ticked. The count above and reports use every
              property.
            </small>
          </div>
          {save.isError && <ErrorState error={save.error} />}
          <button type="submit" className="button" disabled={definition === null || save.isPending}>
            {cohort ? "Save cohort" : "Create cohort"}
          </button>
        </form>
      </Card>
      {cohort && <CohortMembers id={cohort.id} />}
    </>
  );
}
