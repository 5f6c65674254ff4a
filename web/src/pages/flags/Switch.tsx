import { useId } from "react";

/** An on/off switch (a button with role="switch"), labelled, with an optional hint. */
export function Switch({
  checked,
  onChange,
  label,
  hint,
  disabled,
  hideLabel,
}: {
  checked: boolean;
  onChange: (on: boolean) => void;
  label: string;
  hint?: string;
  disabled?: boolean;
  /** The label is for assistive technology only (a switch in a table row). */
  hideLabel?: boolean;
}) {
  const id = useId();
  return (
    <div className="switch-field">
      <button
        type="button"
        role="switch"
        id={id}
        className="switch"
        aria-checked={checked}
        aria-label={hideLabel ? label : undefined}
        aria-describedby={hint ? `${id}-hint` : undefined}
        disabled={disabled}
        onClick={() => onChange(!checked)}
      >
        <span className="switch-knob" aria-hidden="true" />
      </button>
      {!hideLabel && (
        <label htmlFor={id}>
          {label}: {checked ? "on" : "off"}
        </label>
      )}
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
    </div>
  );
}
