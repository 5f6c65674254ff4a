import { useState } from "react";
import { Field, SelectField } from "../../components/Field";
import type { Block } from "./model";

const TYPES: { value: Block["type"]; label: string }[] = [
  { value: "heading", label: "Heading" },
  { value: "text", label: "Text" },
  { value: "button", label: "Button" },
  { value: "code", label: "Code (one-time code)" },
  { value: "image", label: "Image" },
  { value: "divider", label: "Divider" },
];

const blank = (type: Block["type"]): Block => {
  switch (type) {
    case "heading":
      return { type, text: "Heading" };
    case "text":
      return { type, text: "Text" };
    case "button":
      return { type, label: "Open", url: "{{url}}" };
    case "code":
      return { type };
    case "image":
      return { type, src: "https://", alt: "" };
    default:
      return { type: "divider" };
  }
};

/** The ordered blocks of a template: each one's fields, reorder, remove, add. */
export function BlocksEditor({ blocks, onChange }: { blocks: Block[]; onChange: (b: Block[]) => void }) {
  const [newType, setNewType] = useState<Block["type"]>("text");
  const set = (i: number, b: Block) => onChange(blocks.map((x, j) => (j === i ? b : x)));
  const move = (i: number, by: number) => {
    const next = [...blocks];
    const [b] = next.splice(i, 1);
    next.splice(i + by, 0, b!);
    onChange(next);
  };
  return (
    <>
      <ol className="plain-list">
        {blocks.map((b, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks have no id; the position is their identity
          <li key={i} className="block-row">
            <div className="card-header">
              <strong>
                {i + 1}. {TYPES.find((t) => t.value === b.type)?.label ?? b.type}
              </strong>
              <span className="form-row tight">
                <button
                  type="button"
                  className="button secondary small"
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  Up<span className="visually-hidden"> block {i + 1}</span>
                </button>
                <button
                  type="button"
                  className="button secondary small"
                  disabled={i === blocks.length - 1}
                  onClick={() => move(i, 1)}
                >
                  Down<span className="visually-hidden"> block {i + 1}</span>
                </button>
                <button
                  type="button"
                  className="button danger small"
                  onClick={() => onChange(blocks.filter((_, j) => j !== i))}
                >
                  Remove<span className="visually-hidden"> block {i + 1}</span>
                </button>
              </span>
            </div>
            <BlockFields b={b} n={i + 1} onChange={(nb) => set(i, nb)} />
          </li>
        ))}
      </ol>
      <div className="form-row">
        <SelectField
          label="New block"
          value={newType}
          options={TYPES}
          onChange={(e) => setNewType(e.target.value as Block["type"])}
        />
        <button
          type="button"
          className="button secondary small"
          onClick={() => onChange([...blocks, blank(newType)])}
        >
          Add block
        </button>
      </div>
    </>
  );
}

function BlockFields({ b, n, onChange }: { b: Block; n: number; onChange: (b: Block) => void }) {
  const showIf = (
    <Field
      label={`Block ${n}: show only if variable`}
      value={b.showIf ?? ""}
      onChange={(e) => {
        const { showIf: _drop, ...rest } = b;
        onChange(e.target.value ? ({ ...rest, showIf: e.target.value } as Block) : (rest as Block));
      }}
      maxLength={100}
    />
  );
  switch (b.type) {
    case "heading":
    case "text":
      return (
        <>
          <div className="field">
            <label htmlFor={`block-${n}-text`}>Block {n} text</label>
            <textarea
              id={`block-${n}-text`}
              value={b.text}
              onChange={(e) => onChange({ ...b, text: e.target.value })}
              maxLength={b.type === "heading" ? 500 : 10_000}
            />
          </div>
          {showIf}
        </>
      );
    case "button":
      return (
        <>
          <Field
            label={`Block ${n} label`}
            value={b.label}
            onChange={(e) => onChange({ ...b, label: e.target.value })}
          />
          <Field
            label={`Block ${n} link`}
            value={b.url}
            onChange={(e) => onChange({ ...b, url: e.target.value })}
          />
          {showIf}
        </>
      );
    case "code":
      return (
        <>
          <Field
            label={`Block ${n} code placeholder`}
            hint="Defaults to {{code}}"
            value={b.value ?? ""}
            onChange={(e) => onChange({ ...b, value: e.target.value || undefined })}
          />
          <Field
            label={`Block ${n} caption`}
            value={b.caption ?? ""}
            onChange={(e) => onChange({ ...b, caption: e.target.value || undefined })}
          />
          {showIf}
        </>
      );
    case "image":
      return (
        <>
          <Field
            label={`Block ${n} image URL`}
            value={b.src}
            onChange={(e) => onChange({ ...b, src: e.target.value })}
          />
          <Field
            label={`Block ${n} alt text`}
            value={b.alt ?? ""}
            onChange={(e) => onChange({ ...b, alt: e.target.value })}
          />
          {showIf}
        </>
      );
    default:
      return showIf;
  }
}
