import { useId } from "react";
import { ConditionBuilder, type ConditionDraft } from "./ConditionBuilder";
import { toClauses, toCondition } from "./conditions";
import { parseValue, RULE_LABELS, type Rule, type RuleType, type ValueType, valueText } from "./model";
import { ValueInput } from "./ValueInput";
import { useExperimentList } from "../experiments/model";

/** A rule as the form holds it: values as text, coverage in percent. */
export interface RuleDraft {
  id?: string;
  type: RuleType;
  condition: ConditionDraft;
  value: string;
  coverage: number;
  hashAttribute: string;
  experimentId: string;
  variations: string[];
}

export function ruleDraft(rule: Rule, type: ValueType): RuleDraft {
  const clauses = toClauses(rule.condition);
  return {
    id: rule.id,
    type: rule.type,
    condition: clauses
      ? { mode: "clauses", clauses }
      : { mode: "json", json: JSON.stringify(rule.condition, null, 2) },
    value: rule.type === "experiment" ? valueText(type, undefined) : valueText(type, rule.value),
    coverage: rule.type === "rollout" ? Math.round(rule.coverage * 1000) / 10 : 50,
    hashAttribute: rule.type === "rollout" ? (rule.hashAttribute ?? "id") : "id",
    experimentId: rule.type === "experiment" ? rule.experimentId : "",
    variations: rule.type === "experiment" ? rule.variations.map((v) => valueText(type, v)) : [],
  };
}

export const newRule = (type: RuleType, valueType: ValueType): RuleDraft => ({
  type,
  condition: { mode: "clauses", clauses: [] },
  value: valueText(valueType, valueType === "boolean" ? true : undefined),
  coverage: 50,
  hashAttribute: "id",
  experimentId: "",
  variations: [],
});

/** The rule as the API takes it; throws a message naming the rule. */
export function ruleBody(d: RuleDraft, type: ValueType, n: number) {
  const what = `Rule ${n}`;
  let condition: Record<string, unknown> | undefined;
  try {
    condition =
      d.condition.mode === "clauses" ? toCondition(d.condition.clauses) : JSON.parse(d.condition.json);
  } catch (e) {
    throw new Error(
      `${what}: ${e instanceof SyntaxError ? "the condition is not valid JSON" : (e as Error).message}`,
    );
  }
  const base = { ...(d.id ? { id: d.id } : {}), ...(condition ? { condition } : {}) };
  if (d.type === "force")
    return { ...base, type: "force" as const, value: parseValue(type, d.value, `${what}'s value`) };
  if (d.type === "rollout")
    return {
      ...base,
      type: "rollout" as const,
      value: parseValue(type, d.value, `${what}'s value`),
      coverage: d.coverage / 100,
      ...(d.hashAttribute && d.hashAttribute !== "id" ? { hashAttribute: d.hashAttribute } : {}),
    };
  if (!d.experimentId) throw new Error(`${what}: pick an experiment`);
  return {
    ...base,
    type: "experiment" as const,
    experimentId: d.experimentId,
    variations: d.variations.map((v, i) => parseValue(type, v, `${what}'s value for variant ${i + 1}`)),
  };
}

/** The ordered rules: first match wins, so they can be moved. */
export function RulesEditor({
  rules,
  onChange,
  valueType,
  attributes,
}: {
  rules: RuleDraft[];
  onChange: (rules: RuleDraft[]) => void;
  valueType: ValueType;
  attributes: string[];
}) {
  const set = (i: number, patch: Partial<RuleDraft>) =>
    onChange(rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const move = (i: number, to: number) => {
    const next = [...rules];
    const [r] = next.splice(i, 1);
    next.splice(to, 0, r!);
    onChange(next);
  };
  return (
    <section className="rules" aria-label="Rules">
      <h2>Rules</h2>
      <p className="muted small">
        Applied in order; the first rule that matches a user decides. Otherwise the default.
      </p>
      {rules.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: new rules have no id yet; order is the identity
        <fieldset className="rule" key={i}>
          <legend>
            Rule {i + 1}: {RULE_LABELS[r.type]}
          </legend>
          <ConditionBuilder
            label={`Rule ${i + 1}`}
            value={r.condition}
            onChange={(condition) => set(i, { condition })}
            attributes={attributes}
          />
          {r.type === "experiment" ? (
            <ExperimentPicker rule={r} valueType={valueType} onChange={(patch) => set(i, patch)} n={i + 1} />
          ) : (
            <ValueInput
              type={valueType}
              label={`Rule ${i + 1} value`}
              value={r.value}
              onChange={(value) => set(i, { value })}
            />
          )}
          {r.type === "rollout" && (
            <Rollout rule={r} n={i + 1} attributes={attributes} onChange={(p) => set(i, p)} />
          )}
          <div className="form-row tight">
            <button
              type="button"
              className="button secondary small"
              disabled={i === 0}
              onClick={() => move(i, i - 1)}
            >
              Move rule {i + 1} up
            </button>
            <button
              type="button"
              className="button secondary small"
              disabled={i === rules.length - 1}
              onClick={() => move(i, i + 1)}
            >
              Move rule {i + 1} down
            </button>
            <button
              type="button"
              className="button danger small"
              onClick={() => onChange(rules.filter((_, j) => j !== i))}
            >
              Remove rule {i + 1}
            </button>
          </div>
        </fieldset>
      ))}
      <div className="form-row tight">
        {(Object.keys(RULE_LABELS) as RuleType[]).map((t) => (
          <button
            key={t}
            type="button"
            className="button secondary small"
            onClick={() => onChange([...rules, newRule(t, valueType)])}
          >
            Add: {RULE_LABELS[t].toLowerCase()}
          </button>
        ))}
      </div>
    </section>
  );
}

function Rollout({
  rule,
  n,
  attributes,
  onChange,
}: {
  rule: RuleDraft;
  n: number;
  attributes: string[];
  onChange: (patch: Partial<RuleDraft>) => void;
}) {
  const id = useId();
  return (
    <div className="form-row">
      <div className="field">
        <label htmlFor={id}>Rule {n} rollout: share of matching users</label>
        <div className="slider">
          <input
            id={id}
            type="range"
            min={0}
            max={100}
            step={1}
            value={rule.coverage}
            onChange={(e) => onChange({ coverage: Number(e.target.value) })}
          />
          <output htmlFor={id}>{rule.coverage}%</output>
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-h`}>Rule {n} hashed on</label>
        <input
          id={`${id}-h`}
          list={`${id}-attrs`}
          value={rule.hashAttribute}
          onChange={(e) => onChange({ hashAttribute: e.target.value })}
        />
        <datalist id={`${id}-attrs`}>
          {attributes.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </div>
    </div>
  );
}

function ExperimentPicker({
  rule,
  valueType,
  onChange,
  n,
}: {
  rule: RuleDraft;
  valueType: ValueType;
  onChange: (patch: Partial<RuleDraft>) => void;
  n: number;
}) {
  const id = useId();
  const experiments = useExperimentList();
  const chosen = experiments.data?.find((e) => e.id === rule.experimentId);
  const pick = (experimentId: string) => {
    const e = experiments.data?.find((x) => x.id === experimentId);
    const count = e?.variants.length ?? 0;
    const fill = valueText(valueType, valueType === "boolean" ? false : undefined);
    onChange({
      experimentId,
      variations: Array.from({ length: count }, (_, i) => rule.variations[i] ?? fill),
    });
  };
  return (
    <>
      <div className="field">
        <label htmlFor={id}>Rule {n} experiment</label>
        <select id={id} value={rule.experimentId} onChange={(e) => pick(e.target.value)}>
          <option value="">{experiments.isPending ? "Loading experiments…" : "Pick an experiment"}</option>
          {(experiments.data ?? []).map((e) => (
            <option key={e.id} value={e.id}>
              {e.name} ({e.status}
              {e.winner ? `, winner ${e.winner}` : ""})
            </option>
          ))}
        </select>
        <small className="muted">
          Served while the experiment runs, with its traffic split; once it completes with a winner, its value
          goes to everyone this rule matches.
        </small>
      </div>
      {chosen && (
        <div className="form-row">
          {chosen.variants.map((v, i) => (
            <ValueInput
              key={v.name}
              type={valueType}
              label={`Rule ${n} value for ${v.name}`}
              value={rule.variations[i] ?? ""}
              onChange={(text) =>
                onChange({ variations: rule.variations.map((x, j) => (j === i ? text : x)) })
              }
            />
          ))}
        </div>
      )}
    </>
  );
}
