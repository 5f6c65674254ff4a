import { useState } from "react";
import { CustomRange } from "../../components/CustomRange";
import { SelectField } from "../../components/Field";
import { type PeriodQuery, useOptionalPeriod } from "../../components/period";

/**
 * The dashboard's own period, kept in the URL so a link keeps it; null while every tile shows its
 * saved period.
 */
export const useDashboardRange = useOptionalPeriod;

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
      {custom && <CustomRange value={value} label="Custom dashboard period" onApply={onChange} />}
    </div>
  );
}
