import { useId } from "react";
import type { ValueType } from "./model";

/** A value of the flag's type, as text: a switch-like select, a text or number box, or JSON. */
export function ValueInput({
  type,
  label,
  value,
  onChange,
}: {
  type: ValueType;
  label: string;
  value: string;
  onChange: (text: string) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {type === "boolean" ? (
        <select
          id={id}
          value={value === "true" ? "true" : "false"}
          onChange={(e) => onChange(e.target.value)}
        >
          <option value="true">true (on)</option>
          <option value="false">false (off)</option>
        </select>
      ) : type === "json" ? (
        <textarea
          id={id}
          className="code"
          rows={3}
          spellCheck={false}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input
          id={id}
          type={type === "number" ? "number" : "text"}
          step={type === "number" ? "any" : undefined}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </div>
  );
}
