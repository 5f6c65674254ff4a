import { type FormEvent, useState } from "react";
import { useSearchParams } from "react-router";
import { Field, SelectField } from "../../components/Field";
import { type PeriodQuery, daysAgoIso, todayIso } from "../../components/period";

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const PRESETS = new Set(["7d", "30d", "90d"]);

/**
 * The dashboard's own period, kept in the URL (`?period=…`, `&from=…&to=…` for a custom range) so
 * a link keeps it; null while every tile shows its saved period.
 */
export function useDashboardRange(): [PeriodQuery | null, (next: PeriodQuery | null) => void] {
  const [params, setParams] = useSearchParams();
  const p = params.get("period");
  const from = params.get("from") ?? "";
  const to = params.get("to") ?? "";
  const value: PeriodQuery | null =
    p === "custom" && ISO_DATE.test(from) && ISO_DATE.test(to)
      ? { period: "custom", from, to }
      : p && PRESETS.has(p)
        ? { period: p as PeriodQuery["period"] }
        : null;
  const set = (next: PeriodQuery | null) =>
    setParams(
      (prev) => {
        const out = new URLSearchParams(prev);
        for (const k of ["period", "from", "to"]) out.delete(k);
        if (next) out.set("period", next.period);
        if (next?.period === "custom" && next.from && next.to) {
          out.set("from", next.from);
          out.set("to", next.to);
        }
        return out;
      },
      { replace: true },
    );
  return [value, set];
}

const OPTIONS = [
  { value: "", label: "Each tile's own" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "90d", label: "Last 90 days" },
  { value: "custom", label: "Custom range" },
];

/** Picks the dashboard's period: while one is set, it replaces every tile's saved period. */
export function DashboardRange({
  value,
  onChange,
}: {
  value: PeriodQuery | null;
  onChange: (next: PeriodQuery | null) => void;
}) {
  const [custom, setCustom] = useState(value?.period === "custom");
  const [from, setFrom] = useState(value?.from ?? daysAgoIso(29));
  const [to, setTo] = useState(value?.to ?? todayIso());
  const invalid = from > to ? "From must not be after To." : null;
  const apply = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid) onChange({ period: "custom", from, to });
  };
  return (
    <div className="dashboard-range">
      <SelectField
        label="Dashboard period"
        options={OPTIONS}
        value={custom ? "custom" : (value?.period ?? "")}
        onChange={(e) => {
          const v = e.target.value;
          setCustom(v === "custom");
          if (v === "") onChange(null);
          else if (v !== "custom") onChange({ period: v as PeriodQuery["period"] });
        }}
      />
      {custom && (
        <form className="custom-range" onSubmit={apply} aria-label="Custom dashboard period">
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
