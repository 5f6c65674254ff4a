import { valueLabel } from "./channels";
import { type FormEvent, type ReactNode, useState } from "react";
import { ConditionBuilder } from "./ConditionBuilder";
import { type Condition, describeCondition, needsValue, useFilter, withoutPending } from "./filter";
import { useValueSuggestions } from "./pickers";

const complete = (c: Condition) =>
  !c.key.endsWith(".") &&
  (!needsValue(c.op) ||
    (Array.isArray(c.value) ? c.value.length > 0 : c.value !== undefined && String(c.value).trim() !== ""));

/**
 * The filter every report page shares: the active conditions as removable chips, and an editor.
 * The filter lives in the URL (`?filter=`), so the filtered view is a link.
 */
export function FilterBar() {
  const filter = useFilter();
  const [draft, setDraft] = useState<Condition[] | null>(null);
  const cohorts = useValueSuggestions(filter.conditions.some((c) => c.key === "cohort") ? "cohort" : "", "");
  const names = new Map(cohorts.map((c) => [c.value, c.label ?? c.value]));
  const apply = (e: FormEvent) => {
    e.preventDefault();
    filter.set((draft ?? []).map(withoutPending).filter(complete));
    setDraft(null);
  };
  return (
    <section className="filter-bar" aria-label="Filter">
      {filter.conditions.length > 0 && (
        <ul className="chips" aria-label="Active filters">
          {filter.conditions.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a chip is a position in the filter
            <li key={i} className="chip">
              <span>{describeCondition(c, names)}</span>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove filter: ${describeCondition(c, names)}`}
                onClick={() => filter.remove(i)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {draft === null ? (
        <button
          type="button"
          className="button secondary small"
          onClick={() =>
            setDraft(
              filter.conditions.length > 0 ? filter.conditions : [{ key: "channel", op: "is", value: "" }],
            )
          }
        >
          {filter.conditions.length > 0 ? "Edit filter" : "Add a filter"}
        </button>
      ) : (
        <form className="filter-editor" onSubmit={apply} aria-label="Edit the filter">
          <ConditionBuilder conditions={draft} onChange={setDraft} multi />
          <div className="form-row">
            <button type="submit" className="button small">
              Apply filter
            </button>
            <button type="button" className="button secondary small" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** A table value that adds itself to the filter when clicked (`channel is email`). */
export function FilterValue({
  filterKey,
  value,
  children,
}: {
  filterKey: string;
  value: string;
  children?: ReactNode;
}) {
  const filter = useFilter();
  return (
    <button
      type="button"
      className="link-button"
      title={`Filter the view to ${filterKey.replace("_", " ")} ${valueLabel(filterKey, value)}`}
      onClick={() => filter.add(filterKey, value)}
    >
      {children ?? valueLabel(filterKey, value)}
    </button>
  );
}
