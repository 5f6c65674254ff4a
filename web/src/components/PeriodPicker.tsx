import { type FormEvent, useState } from "react";
import { Field } from "./Field";
import { type PeriodName, type PeriodQuery, daysAgoIso, todayIso } from "./period";

const OPTIONS: { value: PeriodName; label: string }[] = [
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
  { value: "90d", label: "90 days" },
  { value: "custom", label: "Custom" },
];

/** 7d / 30d / 90d / custom from–to (inclusive UTC dates, as the API counts them). */
export function PeriodPicker({
  value,
  onChange,
}: {
  value: PeriodQuery;
  onChange: (p: PeriodQuery) => void;
}) {
  const [custom, setCustom] = useState(value.period === "custom");
  const [from, setFrom] = useState(value.from ?? daysAgoIso(29));
  const [to, setTo] = useState(value.to ?? todayIso());
  const invalid = from > to ? "From must not be after To." : null;
  const apply = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid) onChange({ period: "custom", from, to });
  };
  return (
    <div className="period-picker">
      <fieldset className="segmented">
        <legend className="visually-hidden">Period</legend>
        {OPTIONS.map((o) => (
          <label
            key={o.value}
            className={(custom ? o.value === "custom" : value.period === o.value) ? "on" : undefined}
          >
            <input
              type="radio"
              name="period"
              value={o.value}
              checked={custom ? o.value === "custom" : value.period === o.value}
              onChange={() => {
                setCustom(o.value === "custom");
                if (o.value !== "custom") onChange({ period: o.value });
              }}
            />
            {o.label}
          </label>
        ))}
      </fieldset>
      {custom && (
        <form className="custom-range" onSubmit={apply} aria-label="Custom period">
          <Field
            label="From"
            type="date"
            value={from}
            max={to}
            onChange={(e) => setFrom(e.target.value)}
            required
          />
          <Field
            label="To"
            type="date"
            value={to}
            min={from}
            onChange={(e) => setTo(e.target.value)}
            required
          />
          <button type="submit" className="button" disabled={!!invalid}>
            Apply
          </button>
          {invalid && (
            <p className="form-error" role="alert">
              {invalid}
            </p>
          )}
        </form>
      )}
    </div>
  );
}
