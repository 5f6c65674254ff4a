import { Field, SelectField } from "../../components/Field";
import { useEventSuggestions, usePropertySuggestions } from "../../components/pickers";
import { SuggestField } from "../../components/SuggestField";
import { LETTERS, MAX_SERIES, MEASURES, NUMERIC, type Measure, type SeriesDraft, newSeries } from "./url";

function SeriesRow({
  letter,
  s,
  set,
  remove,
}: {
  letter: string;
  s: SeriesDraft;
  set: (p: Partial<SeriesDraft>) => void;
  remove?: () => void;
}) {
  const events = useEventSuggestions(s.event);
  const properties = usePropertySuggestions("event", s.property, s.event.trim() || undefined);
  return (
    <li className="funnel-step">
      <div className="form-row">
        <SuggestField
          label={`Series ${letter} event`}
          required
          maxLength={200}
          value={s.event}
          suggestions={[...events, { value: "$conversion", label: "Conversions of the goal" }]}
          onChange={(e) => set({ event: e.target.value })}
        />
        <SelectField
          label={`Series ${letter} measure`}
          value={s.measure}
          onChange={(e) => set({ measure: e.target.value as Measure })}
          options={[...MEASURES]}
        />
        {NUMERIC.has(s.measure) && (
          <SuggestField
            label={`Series ${letter} property`}
            required
            maxLength={100}
            placeholder="revenue"
            value={s.property}
            suggestions={properties}
            onChange={(e) => set({ property: e.target.value })}
          />
        )}
        <Field
          label={`Series ${letter} name`}
          maxLength={100}
          placeholder="optional"
          value={s.name}
          onChange={(e) => set({ name: e.target.value })}
        />
        {remove && (
          <button type="button" className="button secondary small" onClick={remove}>
            Remove series {letter}
          </button>
        )}
      </div>
    </li>
  );
}

/** Series A, B, C …: an event, a measure (a property for the numeric ones) and an optional name each. */
export function SeriesEditor({
  series,
  onChange,
}: {
  series: SeriesDraft[];
  onChange: (next: SeriesDraft[]) => void;
}) {
  return (
    <ol className="funnel-steps">
      {series.map((s, i) => (
        <SeriesRow
          // biome-ignore lint/suspicious/noArrayIndexKey: a series is its position; its letter is its index
          key={i}
          letter={LETTERS[i]!}
          s={s}
          set={(p) => onChange(series.map((x, k) => (k === i ? { ...x, ...p } : x)))}
          remove={series.length > 1 ? () => onChange(series.filter((_, k) => k !== i)) : undefined}
        />
      ))}
      {series.length < MAX_SERIES && (
        <li>
          <button
            type="button"
            className="button secondary small"
            onClick={() => onChange([...series, newSeries()])}
          >
            Add a series
          </button>
        </li>
      )}
    </ol>
  );
}
