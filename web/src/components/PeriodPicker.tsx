import { useState } from "react";
import { CustomRange } from "./CustomRange";
import type { PeriodName, PeriodQuery } from "./period";

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
      {custom && <CustomRange value={value} label="Custom period" onApply={onChange} />}
    </div>
  );
}
