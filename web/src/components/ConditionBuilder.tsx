import { ConditionRow } from "./ConditionRow";
import type { Condition, FilterOp, KeyKind } from "./filter";

const MAX = 10;

/**
 * The dashboard's one condition builder: conditions that must all hold, built from pickers instead
 * of typed JSON. The report filter bar, the cohort editor (an event's conditions, a lead property
 * condition), the conversion-goal form and funnel steps each map their wire form to its rows.
 * `kinds` limits the attributes offered. Rows are numbered `prefix` + position, so every field and
 * remove button names its condition alone, lists inside lists included ("Remove condition 1.2").
 */
export function ConditionBuilder({
  conditions,
  onChange,
  kinds,
  ops,
  multi,
  first = { key: "channel", op: "is", value: "" },
  addLabel = "Add a condition",
  prefix = "",
  start = 1,
  max = MAX,
}: {
  conditions: Condition[];
  onChange: (next: Condition[]) => void;
  kinds?: KeyKind[];
  ops?: FilterOp[];
  /** several values as chips for is / is not (the report filter; the API takes an array there) */
  multi?: boolean;
  first?: Condition;
  addLabel?: string;
  /** before each row's number: a nested list's "1." */
  prefix?: string;
  /** the first row's number (a row standing in a numbered list of other kinds) */
  start?: number;
  /** at most this many rows; the add button goes at the bound */
  max?: number;
}) {
  return (
    <ol className="conditions">
      {conditions.map((c, i) => (
        <ConditionRow
          // biome-ignore lint/suspicious/noArrayIndexKey: conditions are positions in a list being edited
          key={i}
          n={`${prefix}${start + i}`}
          condition={c}
          kinds={kinds}
          ops={ops}
          multi={multi}
          onChange={(next) => onChange(conditions.map((x, k) => (k === i ? next : x)))}
          onRemove={() => onChange(conditions.filter((_, k) => k !== i))}
        />
      ))}
      {conditions.length < max && (
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
