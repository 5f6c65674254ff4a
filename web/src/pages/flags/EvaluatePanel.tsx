import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, call } from "../../api/client";
import { Card, ErrorState } from "../../components/states";
import type { Flag } from "./model";

interface Row {
  name: string;
  value: string;
}

/** Text as an attribute value: numbers, true/false and JSON lists as such, anything else as text. */
function attributeValue(text: string): unknown {
  const t = text.trim();
  if (t === "true" || t === "false") return t === "true";
  if (t !== "" && Number.isFinite(Number(t))) return Number(t);
  if (t.startsWith("[")) {
    try {
      return JSON.parse(t);
    } catch {
      return text;
    }
  }
  return text;
}

/** "Evaluate for a user": what an SDK with these attributes gets, and which rule decided. */
export function EvaluatePanel({ flag, attributes }: { flag: Flag; attributes: string[] }) {
  const listId = useId();
  const [rows, setRows] = useState<Row[]>([{ name: "id", value: "user-1" }]);
  const evaluate = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/flags/{key}/evaluate", {
          params: { path: { key: flag.key } },
          body: {
            attributes: Object.fromEntries(
              rows.filter((r) => r.name.trim()).map((r) => [r.name.trim(), attributeValue(r.value)]),
            ),
          },
        }),
      ),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    evaluate.mutate();
  };
  const set = (i: number, patch: Partial<Row>) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const r = evaluate.data;
  const ruleNumber = r?.ruleId ? flag.rules.findIndex((x) => x.id === r.ruleId) + 1 : 0;

  return (
    <Card title="Evaluate for a user">
      <form onSubmit={submit} aria-label="Evaluate the flag for a user">
        <datalist id={listId}>
          {attributes.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        {rows.map((row, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id; order is the identity
          <div className="form-row tight" key={i}>
            <div className="field">
              <label htmlFor={`${listId}-n${i}`}>Attribute {i + 1}</label>
              <input
                id={`${listId}-n${i}`}
                list={listId}
                value={row.name}
                onChange={(e) => set(i, { name: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={`${listId}-v${i}`}>Value {i + 1}</label>
              <input
                id={`${listId}-v${i}`}
                value={row.value}
                onChange={(e) => set(i, { value: e.target.value })}
              />
            </div>
            <button
              type="button"
              className="button secondary small"
              onClick={() => setRows(rows.filter((_, j) => j !== i))}
            >
              Remove attribute {i + 1}
            </button>
          </div>
        ))}
        <div className="form-row tight">
          <button
            type="button"
            className="button secondary small"
            onClick={() => setRows([...rows, { name: "", value: "" }])}
          >
            Add an attribute
          </button>
          <button type="submit" className="button" disabled={evaluate.isPending}>
            Evaluate
          </button>
        </div>
      </form>
      {evaluate.isError && <ErrorState title="Not evaluated" error={evaluate.error} />}
      {r && (
        <dl className="facts" data-testid="evaluation">
          <dt>Value</dt>
          <dd>
            <code>{JSON.stringify(r.value)}</code>
          </dd>
          <dt>Decided by</dt>
          <dd>
            {r.source === "defaultValue" ? "the default value" : `rule ${ruleNumber} (${r.source})`}
            {r.variant ? `, variant ${r.variant}` : ""}
          </dd>
        </dl>
      )}
    </Card>
  );
}
