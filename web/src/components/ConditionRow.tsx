import { ChipsField } from "./ChipsField";
import { SelectField } from "./Field";
import {
  ATTRIBUTES,
  type Condition,
  type FilterOp,
  type KeyKind,
  OP_LABELS,
  kindOf,
  needsValue,
  opsFor,
  valuesOf,
  withoutPending,
} from "./filter";
import { usePropertySuggestions, useValueSuggestions } from "./pickers";
import { SuggestField } from "./SuggestField";

const isMulti = (op: FilterOp) => op === "is" || op === "is_not";
const MULTI_LABELS: Partial<Record<FilterOp, string>> = { is: "is any of", is_not: "is none of" };

const attributeOf = (key: string) =>
  key.startsWith("event.") ? "event." : key.startsWith("lead.") ? "lead." : key;
const propertyOf = (key: string) =>
  key.startsWith("event.") ? key.slice(6) : key.startsWith("lead.") ? key.slice(5) : "";

/**
 * One condition: attribute (with a property name for event and lead properties), operator, value —
 * each offering what the data holds. `kinds` limits the attributes (a cohort's event conditions).
 */
export function ConditionRow({
  n,
  condition,
  kinds,
  ops: allowed,
  multi = false,
  onChange,
  onRemove,
}: {
  /** the row's number in labels: "2", or "1.2" in a nested list */
  n: string;
  condition: Condition;
  kinds?: KeyKind[];
  /** the operators offered (default: those that fit the attribute) */
  ops?: FilterOp[];
  /** "is any of" / "is none of" with several values as chips (where the API takes an array) */
  multi?: boolean;
  onChange: (next: Condition) => void;
  onRemove: () => void;
}) {
  const attribute = attributeOf(condition.key);
  const kind = kindOf(
    condition.key === "event." || condition.key === "lead." ? `${condition.key}x` : condition.key,
  );
  const property = propertyOf(condition.key);
  const value =
    condition.value === undefined
      ? ""
      : Array.isArray(condition.value)
        ? condition.value.join(",")
        : String(condition.value);
  const chips = multi && kind !== "cohort" && isMulti(condition.op);
  const properties = usePropertySuggestions(kind === "leadProperty" ? "lead" : "event", property);
  const values = useValueSuggestions(
    property || kind === "session" || kind === "event" || kind === "page" || kind === "cohort"
      ? condition.key
      : "",
    chips ? (condition.pending ?? "") : value,
  );
  const ops = opsFor(kind).filter((o) => !allowed || allowed.includes(o));
  const options = ATTRIBUTES.filter((a) => !kinds || kinds.includes(a.kind));
  const setKey = (key: string) => {
    const nextOps = opsFor(kindOf(key === "event." || key === "lead." ? `${key}x` : key));
    onChange({
      key,
      op: nextOps.includes(condition.op) ? condition.op : nextOps[0]!,
      value: condition.value,
    });
  };
  const setValue = (text: string) => {
    const numeric = condition.op === "gt" || condition.op === "lt";
    onChange({
      ...condition,
      value: numeric && text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text,
    });
  };
  return (
    <li className="condition-row">
      <SelectField
        label={`Condition ${n}: attribute`}
        value={attribute}
        onChange={(e) => setKey(e.target.value)}
        options={options.map((a) => ({ value: a.value, label: a.label }))}
      />
      {(kind === "eventProperty" || kind === "leadProperty") && (
        <SuggestField
          label={`Condition ${n}: property`}
          required
          maxLength={100}
          value={property}
          suggestions={properties}
          onChange={(e) => setKey(`${attribute}${e.target.value.replace(/["\\]/g, "")}`)}
        />
      )}
      <SelectField
        label={`Condition ${n}: operator`}
        value={condition.op}
        onChange={(e) => {
          const op = e.target.value as FilterOp;
          // Several values mean "any of" only for is / is not: another operator keeps the first.
          const c = withoutPending(condition);
          const v = Array.isArray(c.value) && !isMulti(op) ? (c.value[0] ?? "") : c.value;
          onChange(needsValue(op) ? { ...c, op, value: v } : { key: c.key, op });
        }}
        options={ops.map((o) => ({ value: o, label: (multi && MULTI_LABELS[o]) || OP_LABELS[o] }))}
      />
      {needsValue(condition.op) &&
        (chips ? (
          <ChipsField
            label={`Condition ${n}: value`}
            listLabel={`Values of condition ${n}`}
            values={valuesOf(condition.value)}
            text={condition.pending ?? ""}
            onChange={({ values: vs, text }) =>
              onChange({
                ...condition,
                value: vs.length === 1 ? vs[0] : vs.length ? vs : "",
                pending: text || undefined,
              })
            }
            suggestions={values}
            hint={
              condition.op === "is"
                ? "Enter or a comma adds a value; any of them matches."
                : "Enter or a comma adds a value; none of them may match."
            }
          />
        ) : kind === "cohort" ? (
          <SelectField
            label={`Condition ${n}: cohort`}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            options={[
              { value: "", label: "Choose a cohort" },
              ...values.map((v) => ({ value: v.value, label: v.label ?? v.value })),
            ]}
          />
        ) : (
          <SuggestField
            label={`Condition ${n}: value`}
            required
            maxLength={500}
            inputMode={condition.op === "gt" || condition.op === "lt" ? "decimal" : undefined}
            value={value}
            suggestions={values}
            onChange={(e) => setValue(e.target.value)}
          />
        ))}
      <button type="button" className="button secondary small" onClick={onRemove}>
        Remove condition {n}
      </button>
    </li>
  );
}
