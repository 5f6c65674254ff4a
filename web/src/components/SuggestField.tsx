import { type InputHTMLAttributes, type ReactNode, useId } from "react";
import type { Suggestion } from "./pickers";

/** A labelled text input offering values seen in the data (a native datalist: keyboard and screen readers). */
export function SuggestField({
  label,
  hint,
  suggestions,
  ...input
}: { label: string; hint?: ReactNode; suggestions: Suggestion[] } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        list={`${id}-list`}
        autoComplete="off"
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...input}
      />
      <datalist id={`${id}-list`}>
        {suggestions.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label ?? s.value}
          </option>
        ))}
      </datalist>
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
    </div>
  );
}
