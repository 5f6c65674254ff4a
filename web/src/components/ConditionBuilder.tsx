import { ConditionRow } from "./ConditionRow";
import type { Condition, FilterOp, KeyKind } from "./filter";

const MAX = 10;

/**
 * Conditions that must all hold, built from pickers instead of typed JSON: the report filter, a
 * cohort's event conditions, a funnel step's. `kinds` limits the attributes offered.
 */
export function ConditionBuilder({
  conditions,
  onChange,
  kinds,
  ops,
  multi,
  first = { key: "channel", op: "is", value: "" },
  addLabel = "Add a condition",
}: {
  conditions: Condition[];
  onChange: (next: Condition[]) => void;
  kinds?: KeyKind[];
  ops?: FilterOp[];
  /** several values as chips for is / is not (the report filter; the API takes an array there) */
  multi?: boolean;
  first?: Condition;
  addLabel?: string;
}) {
  return (
    <ol className="conditions">
      {conditions.map((c, i) => (
        <ConditionRow
          // biome-ignore lint/suspicious/noArrayIndexKey: conditions are positions in a list being edited
          key={i}
          n={i + 1}
          condition={c}
          kinds={kinds}
          ops={ops}
          multi={multi}
          onChange={(next) => onChange(conditions.map((x, k) => (k === i ? next : x)))}
          onRemove={() => onChange(conditions.filter((_, k) => k !== i))}
        />
      ))}
      {conditions.length < MAX && (
        <li>
          <button
            type="button"
            className="button secondary small"
            onClick={() => onChange([...conditions, first])}
          >
            {addLabel}
          </button>
        </li>
      )}
    </ol>
  );
}
