import { ConditionBuilder } from "../../components/ConditionBuilder";
import { Field, SelectField } from "../../components/Field";
import { useEventSuggestions } from "../../components/pickers";
import { SuggestField } from "../../components/SuggestField";
import { type DraftCondition, newEventCondition, newPropertyCondition } from "./model";

type EventDraft = Extract<DraftCondition, { type: "event" }>;

function EventCondition({ n, c, set }: { n: number; c: EventDraft; set: (next: DraftCondition) => void }) {
  const events = useEventSuggestions(c.event);
  return (
    <>
      <div className="form-row">
        <SelectField
          label={`Condition ${n}: did or did not`}
          value={c.did ? "did" : "did_not"}
          onChange={(e) => set({ ...c, did: e.target.value === "did" })}
          options={[
            { value: "did", label: "Did" },
            { value: "did_not", label: "Did not do" },
          ]}
        />
        <SuggestField
          label={`Condition ${n}: event`}
          required
          maxLength={200}
          value={c.event}
          suggestions={events}
          onChange={(e) => set({ ...c, event: e.target.value })}
        />
        <Field
          label={`Condition ${n}: at least (times)`}
          type="number"
          min={1}
          max={1000}
          required
          value={c.atLeast}
          onChange={(e) => set({ ...c, atLeast: e.target.value })}
        />
        <Field
          label={`Condition ${n}: in the last (days)`}
          type="number"
          min={1}
          max={365}
          required
          value={c.withinDays}
          onChange={(e) => set({ ...c, withinDays: e.target.value })}
        />
      </div>
      <ConditionBuilder
        conditions={c.where}
        onChange={(where) => set({ ...c, where })}
        kinds={["page", "eventProperty"]}
        first={{ key: "event.", op: "is", value: "" }}
        addLabel={`Add a condition on condition ${n}'s event`}
        prefix={`${n}.`}
      />
    </>
  );
}

/** A cohort's conditions: events done or not in a window, with their own conditions; lead properties. */
export function CohortConditions({
  draft,
  onChange,
}: {
  draft: DraftCondition[];
  onChange: (next: DraftCondition[]) => void;
}) {
  const set = (i: number, next: DraftCondition) => onChange(draft.map((c, k) => (k === i ? next : c)));
  const remove = (i: number) => onChange(draft.filter((_, k) => k !== i));
  return (
    <ol className="cohort-conditions">
      {draft.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: conditions are positions in a list being edited
        <li key={i} className="cohort-condition">
          {c.type === "event" ? (
            <>
              <EventCondition n={i + 1} c={c} set={(next) => set(i, next)} />
              <button type="button" className="button secondary small" onClick={() => remove(i)}>
                Remove condition {i + 1}
              </button>
            </>
          ) : (
            <ConditionBuilder
              conditions={[c.row]}
              onChange={(rows) => (rows[0] ? set(i, { type: "property", row: rows[0] }) : remove(i))}
              kinds={["leadProperty"]}
              start={i + 1}
              max={1}
            />
          )}
        </li>
      ))}
      {draft.length < 10 && (
        <li className="form-row">
          <button
            type="button"
            className="button secondary small"
            onClick={() => onChange([...draft, newEventCondition()])}
          >
            Add an event condition
          </button>
          <button
            type="button"
            className="button secondary small"
            onClick={() => onChange([...draft, newPropertyCondition()])}
          >
            Add a lead property condition
          </button>
        </li>
      )}
    </ol>
  );
}
