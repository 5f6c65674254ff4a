import { type FormEvent, useState } from "react";
import { Field, SelectField } from "../../components/Field";
import { DIMENSIONS } from "../../components/dimensions";
import { usePropertySuggestions } from "../../components/pickers";
import { SuggestField } from "../../components/SuggestField";
import { SeriesEditor } from "./SeriesEditor";
import { INTERVALS, type Interval, START, type TrendShown } from "./url";

/** Session values a trend breaks down by (the API's), then the events' own properties. */
const SESSION_KEYS = [
  ...DIMENSIONS.filter((d) => d.value !== "event_type"),
  { value: "country", label: "Country" },
];

/**
 * The trend's editor: a draft until "Show trends" puts it in the URL. A formula the API refused
 * shows the API's message under the field (`formulaError`).
 */
export function TrendBuilder({
  shown,
  onShow,
  formulaError,
}: {
  shown: TrendShown | null;
  onShow: (next: TrendShown) => void;
  formulaError: string | null;
}) {
  const [draft, setDraft] = useState<TrendShown>(shown ?? START);
  const set = (p: Partial<TrendShown>) => setDraft((d) => ({ ...d, ...p }));
  const prefix = draft.breakdown.startsWith("event.") ? draft.breakdown.slice(6) : "";
  const props = usePropertySuggestions("event", prefix);
  const breakdowns = [
    ...SESSION_KEYS.map((d) => ({ value: d.value, label: d.label })),
    ...props.map((p) => ({ value: `event.${p.value}`, label: `Event property ${p.value}` })),
  ];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onShow(draft);
  };
  return (
    <form onSubmit={submit} aria-label="Trend">
      <SeriesEditor series={draft.series} onChange={(series) => set({ series })} />
      <div className="form-row">
        <SelectField
          label="Interval"
          value={draft.interval}
          onChange={(e) => set({ interval: e.target.value as Interval })}
          options={INTERVALS.map((i) => ({ value: i, label: i[0]!.toUpperCase() + i.slice(1) }))}
        />
        <SuggestField
          label="Break down by"
          maxLength={106}
          placeholder="channel, event.plan …"
          value={draft.breakdown}
          suggestions={breakdowns}
          onChange={(e) => set({ breakdown: e.target.value })}
          hint="A session value, country, or event.<property>"
        />
        {draft.breakdown.trim() && (
          <Field
            label="Top values"
            type="number"
            min={1}
            max={50}
            value={String(draft.limit)}
            onChange={(e) => set({ limit: Number(e.target.value) })}
          />
        )}
      </div>
      <div className="form-row">
        <Field
          label="Formula"
          maxLength={200}
          placeholder="A / B * 100"
          value={draft.formula}
          onChange={(e) => set({ formula: e.target.value })}
          aria-invalid={formulaError ? true : undefined}
          hint={
            formulaError ? (
              <span id="trends-formula-error" className="error-text" role="alert">
                {formulaError}
              </span>
            ) : (
              "Over the series' letters: + − * / and parentheses. Ending in * 100 reads as a percentage."
            )
          }
        />
      </div>
      <div className="check-field">
        <label>
          <input
            type="checkbox"
            checked={draft.compare}
            onChange={(e) => set({ compare: e.target.checked })}
          />{" "}
          Compare to the previous period
        </label>
      </div>
      <button type="submit" className="button">
        Show trends
      </button>
    </form>
  );
}
