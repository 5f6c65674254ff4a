import { useId } from "react";
import { Field } from "../../components/Field";

export interface VariantDraft {
  name: string;
  css: string;
  js: string;
}

/** The variants: a name each, and the CSS and JavaScript the snippet applies for it. */
export function VariantsEditor({
  variants,
  onChange,
  locked,
  code = true,
}: {
  variants: VariantDraft[];
  onChange: (v: VariantDraft[]) => void;
  /** Variants cannot change once the experiment has run (the API refuses it). */
  locked: boolean;
  /** CSS and JavaScript fields: the snippet's; a flag's experiment has names only. */
  code?: boolean;
}) {
  const set = (i: number, patch: Partial<VariantDraft>) =>
    onChange(variants.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  return (
    <fieldset className="variants" disabled={locked}>
      <legend>Variants</legend>
      {locked && <p className="muted">Variants are fixed once the experiment has run.</p>}
      {variants.map((v, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: variants have no id until saved; order is the identity
        <div className="variant" key={i}>
          <div className="form-row">
            <Field
              label={i === 0 ? "Control name" : `Variant ${i + 1} name`}
              value={v.name}
              required
              maxLength={100}
              onChange={(e) => set(i, { name: e.target.value })}
            />
            {i > 1 && (
              <button
                type="button"
                className="button secondary small"
                onClick={() => onChange(variants.filter((_, j) => j !== i))}
              >
                Remove {v.name || `variant ${i + 1}`}
              </button>
            )}
          </div>
          {code && (
            <>
              <CodeArea
                label={`CSS for ${v.name || `variant ${i + 1}`}`}
                value={v.css}
                onChange={(css) => set(i, { css })}
              />
              <CodeArea
                label={`JavaScript for ${v.name || `variant ${i + 1}`}`}
                value={v.js}
                onChange={(js) => set(i, { js })}
              />
            </>
          )}
        </div>
      ))}
      {variants.length < 20 && (
        <button
          type="button"
          className="button secondary"
          onClick={() => onChange([...variants, { name: `variant-${variants.length + 1}`, css: "", js: "" }])}
        >
          Add a variant
        </button>
      )}
    </fieldset>
  );
}

function CodeArea({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        className="code"
        rows={3}
        maxLength={20_000}
        spellCheck={false}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}
