import { type FormEvent, useState } from "react";
import { Field } from "./Field";
import { type PeriodQuery, daysAgoIso, todayIso } from "./period";

/** From–to (inclusive UTC dates, as the API counts them), applied as a custom period. */
export function CustomRange({
  value,
  label,
  onApply,
}: {
  value: PeriodQuery | null;
  /** the form's accessible name */
  label: string;
  onApply: (p: PeriodQuery) => void;
}) {
  const [from, setFrom] = useState(value?.from ?? daysAgoIso(29));
  const [to, setTo] = useState(value?.to ?? todayIso());
  const invalid = from > to ? "From must not be after To." : null;
  const apply = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid) onApply({ period: "custom", from, to });
  };
  return (
    <form className="custom-range" onSubmit={apply} aria-label={label}>
      <Field
        label="From"
        type="date"
        value={from}
        max={to}
        onChange={(e) => setFrom(e.target.value)}
        required
      />
      <Field label="To" type="date" value={to} min={from} onChange={(e) => setTo(e.target.value)} required />
      <button type="submit" className="button" disabled={!!invalid}>
        Apply
      </button>
      {invalid && (
        <p className="form-error" role="alert">
          {invalid}
        </p>
      )}
    </form>
  );
}
