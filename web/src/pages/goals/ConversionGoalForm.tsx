import { type FormEvent, useState } from "react";
import { Field } from "../../components/Field";

export interface ConversionGoalDraft {
  name: string;
  eventType: string;
  urlPattern: string;
  /** JSON object of conditions on the event's data, e.g. {"plan": "pro", "amount": {"gte": 10}} */
  conditions: string;
}

export const emptyConversionGoal: ConversionGoalDraft = {
  name: "",
  eventType: "",
  urlPattern: "",
  conditions: "",
};

/**
 * The fields of a conversion goal. Conditions are written as JSON; the form only checks that it
 * parses, the API validates the operators and names the wrong one.
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
  onSubmit: (d: {
    name: string;
    eventType: string;
    urlPattern: string | null;
    conditions: Record<string, unknown> | null;
  }) => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [parseError, setParseError] = useState<string | null>(null);
  const set = (patch: Partial<ConversionGoalDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    let conditions: Record<string, unknown> | null = null;
    if (draft.conditions.trim()) {
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
      <Field
        label="Conditions on the event's data (optional, JSON)"
        placeholder='{"plan": "pro", "amount": {"gte": 10}}'
        value={draft.conditions}
        onChange={(e) => set({ conditions: e.target.value })}
      />
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
