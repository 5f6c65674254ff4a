import { useId } from "react";
import { CohortField } from "./CohortField";
import {
  COHORT_ATTRIBUTES,
  type Clause,
  type Kind,
  isCohort,
  isList,
  kindChoosable,
  needsValue,
  type Op,
  OPS,
} from "./conditions";

/** The condition being edited: clauses from the builder, or JSON the builder cannot show. */
export type ConditionDraft = { mode: "clauses"; clauses: Clause[] } | { mode: "json"; json: string };

const KINDS: { value: Kind; label: string }[] = [
  { value: "text", label: "text" },
  { value: "number", label: "number" },
  { value: "boolean", label: "true/false" },
];

/**
 * Switching into or out of a cohort line changes what the value means (a cohort id, or text),
 * so the old value is dropped; a cohort is only tested on id or leadId, so it starts on id.
 */
function opChange(c: Clause, op: Op): Partial<Clause> {
  if (isCohort(op) === isCohort(c.op)) return { op };
  if (!isCohort(op)) return { op, value: "" };
  return { op, value: "", attribute: COHORT_ATTRIBUTES.includes(c.attribute.trim()) ? c.attribute : "id" };
}

/**
 * Who a rule applies to: attribute, operator and value per line, all lines must hold. Attribute
 * names come from a picker (GrowthBook's usual ones and those the project's rules use).
 */
export function ConditionBuilder({
  value,
  onChange,
  attributes,
  label,
}: {
  value: ConditionDraft;
  onChange: (v: ConditionDraft) => void;
  attributes: string[];
  /** Names the rule, for the controls' accessible names. */
  label: string;
}) {
  const listId = useId();
  if (value.mode === "json")
    return (
      <div className="field">
        <label htmlFor={`${listId}-json`}>{label}: condition (JSON, kept as written)</label>
        <textarea
          id={`${listId}-json`}
          className="code"
          rows={4}
          spellCheck={false}
          value={value.json}
          onChange={(e) => onChange({ mode: "json", json: e.target.value })}
        />
        <small className="muted">
          This condition uses logic the builder does not show ($or, $not, nested groups).
        </small>
      </div>
    );
  const clauses = value.clauses;
  const set = (i: number, patch: Partial<Clause>) =>
    onChange({ mode: "clauses", clauses: clauses.map((c, j) => (j === i ? { ...c, ...patch } : c)) });
  return (
    <fieldset className="plain-fieldset condition">
      <legend>{label}: who it applies to</legend>
      <datalist id={listId}>
        {attributes.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      {clauses.length === 0 && <p className="muted small">Everyone.</p>}
      {clauses.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: clauses have no id; their order is their identity
        <div className="clause" key={i}>
          {i > 0 && <span className="muted small clause-and">and</span>}
          <div className="field">
            <label htmlFor={`${listId}-a${i}`}>Attribute</label>
            <input
              id={`${listId}-a${i}`}
              list={listId}
              value={c.attribute}
              required
              maxLength={200}
              onChange={(e) => set(i, { attribute: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor={`${listId}-o${i}`}>Operator</label>
            <select
              id={`${listId}-o${i}`}
              value={c.op}
              onChange={(e) => set(i, opChange(c, e.target.value as Op))}
            >
              {OPS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          {isCohort(c.op) && (
            <CohortField id={`${listId}-c${i}`} value={c.value} onChange={(value) => set(i, { value })} />
          )}
          {needsValue(c.op) && !isCohort(c.op) && (
            <div className="field">
              <label htmlFor={`${listId}-v${i}`}>{isList(c.op) ? "Values (comma-separated)" : "Value"}</label>
              <input
                id={`${listId}-v${i}`}
                value={c.value}
                onChange={(e) => set(i, { value: e.target.value })}
              />
            </div>
          )}
          {kindChoosable(c.op) && (
            <div className="field">
              <label htmlFor={`${listId}-k${i}`}>As</label>
              <select
                id={`${listId}-k${i}`}
                value={c.kind}
                onChange={(e) => set(i, { kind: e.target.value as Kind })}
              >
                {KINDS.map((k) => (
                  <option key={k.value} value={k.value}>
                    {k.label}
                  </option>
                ))}
              </select>
            </div>
          )}
          <button
            type="button"
            className="button secondary small"
            onClick={() => onChange({ mode: "clauses", clauses: clauses.filter((_, j) => j !== i) })}
          >
            Remove condition {i + 1}
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button secondary small"
        onClick={() =>
          onChange({
            mode: "clauses",
            clauses: [...clauses, { attribute: "", op: "is", value: "", kind: "text" }],
          })
        }
      >
        Add a condition
      </button>
    </fieldset>
  );
}
