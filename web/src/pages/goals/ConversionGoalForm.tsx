import { type FormEvent, useState } from "react";
import { ConditionBuilder } from "../../components/ConditionBuilder";
import { Field } from "../../components/Field";
import type { Condition } from "../../components/filter";
import { GOAL_OPS, conditionsOf, rowsOf } from "./goalConditions";

function initialRows(json: string): Condition[] | null {
  if (!json.trim()) return [];
  try {
    return rowsOf(JSON.parse(json));
  } catch {
    return null;
  }
}

export interface ConversionGoalDraft {
  name: string;
  eventType: string;
  urlPattern: string;
  /** JSON object of conditions on the event's data, e.g. {"plan": "pro", "amount": {"gte": 10}} */
  conditions: string;
}

/** What the form hands over: the draft parsed, empty fields as null (the API's "any"). */
export interface ConversionGoalInput {
  name: string;
  eventType: string;
  urlPattern: string | null;
  conditions: Record<string, unknown> | null;
}

export const emptyConversionGoal: ConversionGoalDraft = {
  name: "",
  eventType: "",
  urlPattern: "",
  conditions: "",
};

/**
 * The fields of a conversion goal. Conditions are built from pickers (property, operator, value);
 * conditions the builder cannot say (gte, in …) are edited as JSON, which the API validates.
 */
export function ConversionGoalForm({
  initial,
  submitLabel,
  busy,
  onSubmit,
}: {
  initial: ConversionGoalDraft;
  submitLabel: string;
  busy: boolean;
  onSubmit: (d: ConversionGoalInput) => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [parseError, setParseError] = useState<string | null>(null);
  const [rows, setRows] = useState<Condition[] | null>(() => initialRows(initial.conditions));
  const set = (patch: Partial<ConversionGoalDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    let conditions: Record<string, unknown> | null = null;
    if (rows !== null) conditions = conditionsOf(rows);
    else if (draft.conditions.trim()) {
      try {
        conditions = JSON.parse(draft.conditions);
      } catch {
        setParseError('Conditions must be a JSON object, e.g. {"plan": "pro"}.');
        return;
      }
    }
    setParseError(null);
    onSubmit({
      name: draft.name.trim(),
      eventType: draft.eventType.trim(),
      urlPattern: draft.urlPattern.trim() || null,
      conditions,
    });
  };
  return (
    <form onSubmit={submit} aria-label={submitLabel}>
      <div className="form-row">
        <Field
          label="Conversion name"
          required
          maxLength={200}
          value={draft.name}
          onChange={(e) => set({ name: e.target.value })}
        />
        <Field
          label="Event type"
          hint="e.g. purchase, signup, form_submit"
          required
          maxLength={200}
          value={draft.eventType}
          onChange={(e) => set({ eventType: e.target.value })}
        />
        <Field
          label="URL pattern (optional)"
          hint="* matches anything, e.g. /checkout/*"
          maxLength={2000}
          value={draft.urlPattern}
          onChange={(e) => set({ urlPattern: e.target.value })}
        />
      </div>
      {rows !== null ? (
        <fieldset className="plain-fieldset">
          <legend>Conditions on the event's data (optional)</legend>
          <ConditionBuilder
            conditions={rows}
            onChange={setRows}
            kinds={["eventProperty"]}
            ops={GOAL_OPS}
            first={{ key: "event.", op: "is", value: "" }}
            addLabel="Add a condition"
          />
          <button
            type="button"
            className="button secondary small"
            onClick={() => {
              const c = conditionsOf(rows);
              set({ conditions: c ? JSON.stringify(c) : "" });
              setRows(null);
            }}
          >
            Edit as JSON
          </button>
        </fieldset>
      ) : (
        <Field
          label="Conditions on the event's data (optional, JSON)"
          placeholder='{"plan": "pro", "amount": {"gte": 10}}'
          value={draft.conditions}
          onChange={(e) => set({ conditions: e.target.value })}
        />
      )}
      {parseError && (
        <p className="callout error" role="alert">
          {parseError}
        </p>
      )}
      <button type="submit" className="button" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}
