import { ConditionBuilder } from "../../components/ConditionBuilder";
import { Field } from "../../components/Field";
import type { Condition } from "../../components/filter";
import { useEventSuggestions } from "../../components/pickers";
import { SuggestField } from "../../components/SuggestField";

export interface StepDraft {
  eventType: string;
  urlPattern: string;
  /** conditions on the event's data (`event.<property> is value`) */
  conditions: Condition[];
}

const MIN_STEPS = 2;
const MAX_STEPS = 10;

/** A step's conditions as the funnel API takes them: values the event's data must hold. */
export function stepConditions(s: StepDraft): { conditions?: Record<string, string> } {
  const entries = s.conditions
    .filter(
      (c) =>
        c.key.startsWith("event.") && c.key.length > 6 && c.value !== undefined && String(c.value) !== "",
    )
    .map((c) => [c.key.slice(6), String(c.value)] as const);
  return entries.length > 0 ? { conditions: Object.fromEntries(entries) } : {};
}

function StepRow({
  i,
  step,
  set,
  remove,
}: {
  i: number;
  step: StepDraft;
  set: (p: Partial<StepDraft>) => void;
  remove?: () => void;
}) {
  const events = useEventSuggestions(step.eventType);
  return (
    <li className="funnel-step">
      <div className="form-row">
        <SuggestField
          label={`Step ${i + 1} event type`}
          required
          maxLength={200}
          value={step.eventType}
          suggestions={events}
          onChange={(e) => set({ eventType: e.target.value })}
        />
        <Field
          label={`Step ${i + 1} URL pattern`}
          maxLength={500}
          placeholder="*/pricing*"
          value={step.urlPattern}
          onChange={(e) => set({ urlPattern: e.target.value })}
        />
        {remove && (
          <button type="button" className="button secondary small" onClick={remove}>
            Remove step {i + 1}
          </button>
        )}
      </div>
      <ConditionBuilder
        conditions={step.conditions}
        onChange={(conditions) => set({ conditions })}
        kinds={["eventProperty"]}
        first={{ key: "event.", op: "is", value: "" }}
        addLabel={`Add a property condition to step ${i + 1}`}
      />
    </li>
  );
}

/** The funnel's steps, in order: an event type, an optional URL pattern and property conditions each. */
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
        <StepRow
          // biome-ignore lint/suspicious/noArrayIndexKey: steps are positions; their order is the funnel
          key={i}
          i={i}
          step={s}
          set={(p) => set(i, p)}
          remove={steps.length > MIN_STEPS ? () => onChange(steps.filter((_, k) => k !== i)) : undefined}
        />
      ))}
      {steps.length < MAX_STEPS && (
        <li>
          <button
            type="button"
            className="button secondary small"
            onClick={() => onChange([...steps, { eventType: "", urlPattern: "", conditions: [] }])}
          >
            Add a step
          </button>
        </li>
      )}
    </ol>
  );
}
