import { Field } from "../../components/Field";

export interface StepDraft {
  eventType: string;
  urlPattern: string;
}

const MIN_STEPS = 2;
const MAX_STEPS = 10;

/** The funnel's steps, in order: an event type and an optional URL pattern each (2–10 steps). */
export function StepsEditor({
  steps,
  onChange,
}: {
  steps: StepDraft[];
  onChange: (next: StepDraft[]) => void;
}) {
  const set = (i: number, patch: Partial<StepDraft>) =>
    onChange(steps.map((s, k) => (k === i ? { ...s, ...patch } : s)));
  return (
    <ol className="funnel-steps">
      {steps.map((s, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: steps are positions; their order is the funnel
        <li key={i} className="form-row">
          <Field
            label={`Step ${i + 1} event type`}
            required
            maxLength={200}
            value={s.eventType}
            onChange={(e) => set(i, { eventType: e.target.value })}
          />
          <Field
            label={`Step ${i + 1} URL pattern`}
            maxLength={500}
            placeholder="*/pricing*"
            value={s.urlPattern}
            onChange={(e) => set(i, { urlPattern: e.target.value })}
          />
          {steps.length > MIN_STEPS && (
            <button
              type="button"
              className="button secondary small"
              onClick={() => onChange(steps.filter((_, k) => k !== i))}
            >
              Remove step {i + 1}
            </button>
          )}
        </li>
      ))}
      {steps.length < MAX_STEPS && (
        <li>
          <button
            type="button"
            className="button secondary small"
            onClick={() => onChange([...steps, { eventType: "", urlPattern: "" }])}
          >
            Add a step
          </button>
        </li>
      )}
    </ol>
  );
}
