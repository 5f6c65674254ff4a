import { type ClipboardEvent, type KeyboardEvent, useId } from "react";
import { splitValues } from "./filter";
import type { Suggestion } from "./pickers";

const SEPARATOR = /[,;\t\r\n]/;

/**
 * Several values as removable chips: Enter or a comma makes a chip of what was typed, a pasted
 * list becomes one chip per value, Backspace in the empty box takes the last chip back. What is
 * typed and not yet a chip stays the caller's (`text`), so a form can take it as a value too
 * without a chip appearing (and the layout moving) as the box loses focus.
 */
export function ChipsField({
  label,
  listLabel,
  values,
  text,
  onChange,
  suggestions,
  hint,
  max = 20,
  maxLength = 500,
}: {
  /** the text box's label */
  label: string;
  /** the chips' list's label */
  listLabel: string;
  values: string[];
  /** typed, not yet a chip */
  text: string;
  /** one change of both (a chip made of the text empties the box in the same update) */
  onChange: (next: { values: string[]; text: string }) => void;
  suggestions: Suggestion[];
  hint: string;
  max?: number;
  maxLength?: number;
}) {
  const id = useId();
  const commit = (typed: string) => {
    const next = [...values];
    for (const v of splitValues(typed).map((m) => m.slice(0, maxLength)))
      if (!next.includes(v) && next.length < max) next.push(v);
    onChange({ values: next, text: "" });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    // Enter with a value makes a chip; in an empty box it submits the form as usual.
    if (e.key === "Enter" && text.trim() !== "") {
      e.preventDefault();
      commit(text);
    } else if (e.key === "Backspace" && text === "" && values.length > 0) {
      onChange({ values: values.slice(0, -1), text });
    }
  };
  const onPaste = (e: ClipboardEvent<HTMLInputElement>) => {
    const pasted = e.clipboardData.getData("text");
    if (!SEPARATOR.test(pasted)) return;
    e.preventDefault();
    commit(text + pasted);
  };
  return (
    <div className="field chips-field">
      <label htmlFor={id}>{label}</label>
      {values.length > 0 && (
        <ul className="chips" aria-label={listLabel}>
          {values.map((v) => (
            <li key={v} className="chip">
              <span className="break-all">{v}</span>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove value ${v}`}
                onClick={() => onChange({ values: values.filter((x) => x !== v), text })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        id={id}
        list={`${id}-list`}
        autoComplete="off"
        aria-describedby={`${id}-hint`}
        maxLength={maxLength}
        required={values.length === 0}
        disabled={values.length >= max}
        value={text}
        onChange={(e) => {
          const t = e.target.value;
          if (SEPARATOR.test(t)) commit(t);
          else onChange({ values, text: t });
        }}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      />
      <datalist id={`${id}-list`}>
        {suggestions
          .filter((s) => !values.includes(s.value))
          .map((s) => (
            <option key={s.value} value={s.value}>
              {s.label ?? s.value}
            </option>
          ))}
      </datalist>
      <small id={`${id}-hint`} className="muted">
        {hint}
      </small>
    </div>
  );
}
